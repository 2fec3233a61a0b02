/**
 * The Medusa application of the integration tests, configured as README.md tells a merchant: the
 * package registered as a provider of Medusa's payment module. It is the built package (dist/, from
 * `npm run build`), exactly what npm would install, registered twice: `till` with a test key, and
 * `till_live` with a live key (Till's live mode, paying through Stripe). The test run
 * (test/support/global-setup.ts and the spec's beforeAll) puts Till's address, keys and webhook
 * secrets in the environment.
 */
import path from 'node:path'
import { defineConfig } from '@medusajs/framework/utils'

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: 'set-by-the-test-runner',
    http: { storeCors: '*', adminCors: '*', authCors: '*', jwtSecret: 'test-jwt-secret', cookieSecret: 'test-cookie-secret' },
  },
  modules: [
    {
      resolve: '@medusajs/medusa/payment',
      options: {
        providers: [
          {
            resolve: path.resolve(__dirname, '../..'),
            id: 'till',
            options: {
              baseUrl: process.env.TILL_BASE_URL,
              apiKey: process.env.TILL_TEST_KEY,
              webhookSecret: process.env.TILL_WEBHOOK_SECRET,
              description: 'Till test store',
            },
          },
          {
            resolve: path.resolve(__dirname, '../..'),
            id: 'till_live',
            options: {
              baseUrl: process.env.TILL_BASE_URL,
              apiKey: process.env.TILL_LIVE_KEY,
              webhookSecret: process.env.TILL_LIVE_WEBHOOK_SECRET,
              description: 'Till store',
            },
          },
        ],
      },
    },
  ],
})
