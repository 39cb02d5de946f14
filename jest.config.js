/**
 * `npm test`: every spec that needs no process of its own, on two workers.
 * - unit (src/**\/*.spec.ts, test/**\/*.spec.ts): pure rules and files, no service;
 * - medium (test/medium/*.medium-spec.ts): repositories and services called directly on a real PostgreSQL;
 * - in process (test/*.e2e-spec.ts): the compiled app built in the test process (test/harness/app.ts
 *   `startApp`), on its own database cloned from a migrated template, over HTTP.
 * The system specs (test/system/*.system-spec.ts: spawned processes, Chromium, the topology, packaging and
 * generators) run with `npm run test:system` (jest.system.config.js). NestJS 12 is ESM only, which Node 20
 * loads through require(esm) but jest's module sandbox cannot: the specs load dist/ through Node's own require
 * (test/harness/in-process-environment.ts). The global setup runs `npm run build` first when a source is newer
 * than dist/, so `npx jest <spec>` tests the current source.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: '<rootDir>/test/harness/in-process-environment.ts',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '\\.(spec|e2e-spec|medium-spec)\\.ts$',
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/system/'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  // The SDK's sources (clients/typescript/src) import each other as `./x.js`, as its ESM build needs.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/harness/openapi-contract-hook.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
};
