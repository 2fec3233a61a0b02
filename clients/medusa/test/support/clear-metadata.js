// Medusa's project template does this before each test file: MikroORM's entity registry is
// process-wide, and a second Medusa application in the same process would otherwise see stale entities.
const { MetadataStorage } = require('@medusajs/framework/mikro-orm/core')

MetadataStorage.clear()
