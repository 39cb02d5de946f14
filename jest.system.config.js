const base = require('./jest.config');

/**
 * `npm run test:system`: the specs whose subject is a process or a toolchain (test/system/*.system-spec.ts):
 * `node dist/main.js` and the CLI spawned (start-up rules, SIGTERM and SIGKILL, the embedded default, the CLI's
 * own output, several instances), the admin console in Chromium, the topology (PostgreSQL, PgBouncer, HAProxy),
 * `npm pack` and the client generators. Same harness as `npm test` (jest.config.js).
 * @type {import('jest').Config}
 */
module.exports = {
  ...base,
  roots: ['<rootDir>/test/system'],
  testRegex: '\\.system-spec\\.ts$',
  testPathIgnorePatterns: ['/node_modules/'],
};
