// Jest with SWC, as Medusa's own project template runs its tests (docs.medusajs.com, "Write Tests").
const base = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.[jt]s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, target: 'es2022' } }],
  },
  // The bundled client (../js/src) imports its siblings as './x.js', meaning './x.ts'.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  moduleFileExtensions: ['ts', 'js', 'json'],
}

module.exports = {
  testTimeout: 180_000,
  projects: [
    // Pure functions: no Till, no database.
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    // Against a real Till (and, for integration-tests/, a real Medusa on PostgreSQL).
    {
      ...base,
      displayName: 'till',
      testMatch: ['<rootDir>/test/till/**/*.spec.ts', '<rootDir>/integration-tests/**/*.spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/clear-metadata.js'],
    },
  ],
}
