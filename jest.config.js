/**
 * Unit specs (src/**\/*.spec.ts) test pure rules. E2E specs (test/**\/*.e2e-spec.ts) start the compiled
 * service (`node dist/main.js`) as a child process on its own database, cloned from a migrated template,
 * and talk to it over HTTP: NestJS 12 is ESM-only, which Node 20 loads through require(esm) but jest's
 * module sandbox cannot, so the service under test runs in real Node, exactly as it ships. The global setup
 * runs `npm run build` first when a source is newer than dist/, so `npx jest <spec>` tests the current source.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: '<rootDir>/test/harness/in-process-environment.ts',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '\\.(spec|e2e-spec|medium-spec)\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  // The SDK's sources (clients/typescript/src) import each other as `./x.js`, as its ESM build needs.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/harness/openapi-contract-hook.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
};
