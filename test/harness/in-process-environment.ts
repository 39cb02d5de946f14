import { TestEnvironment } from 'jest-environment-node';

/**
 * The jest environment of every spec: Node's, plus `nativeRequire`, Node's own `require` of this worker process.
 * NestJS 12 is ESM only: Node loads it from our CommonJS build (require(esm)) but jest's module sandbox cannot,
 * so the in-process specs load the compiled service (dist/) through this require, outside the sandbox. Node's
 * module cache belongs to the worker process, so dist/ and its ~1,400 files load once per worker, not once per
 * spec file (test/harness/app.ts).
 */
export default class InProcessEnvironment extends TestEnvironment {
  constructor(...args: ConstructorParameters<typeof TestEnvironment>) {
    super(...args);
    this.global.nativeRequire = require;
  }
}
