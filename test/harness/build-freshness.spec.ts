import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { staleOutput } from '../../scripts/build-freshness';

/** The freshness check behind `npx jest <spec>`: a build older than any of its sources is rebuilt first. */
describe('staleOutput', () => {
  let root: string;
  const BUILT = new Date('2026-01-01T12:00:00Z');
  const EDITED = new Date('2026-01-01T12:05:00Z');

  function write(path: string, time: Date): void {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '');
    utimesSync(file, time, time);
  }

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'roa-freshness-'));
    write('src/main.ts', BUILT);
    write('src/orders/order.ts', BUILT);
    write('src/orders/order.spec.ts', EDITED);
    write('migrations/1-Init.ts', BUILT);
    write('console/src/main.tsx', BUILT);
    write('console/index.html', BUILT);
    write('tsconfig.json', BUILT);
    write('dist/main.js', BUILT);
    write('dist/orders/order.js', BUILT);
    write('dist/migrations/1-Init.js', BUILT);
    write('dist/console/index.html', BUILT);
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('finds nothing when every compiled file is as new as its source (unit specs are not built)', () => {
    expect(staleOutput(root)).toBeUndefined();
  });

  it.each([
    ['a service file', 'src/orders/order.ts', 'dist/orders/order.js'],
    ['a migration', 'migrations/1-Init.ts', 'dist/migrations/1-Init.js'],
    ['the console', 'console/src/main.tsx', 'dist/console/index.html'],
    ['a build setting', 'tsconfig.json', 'dist/main.js'],
  ])('names %s edited after the build', (_what, source, output) => {
    write(source, EDITED);
    expect(staleOutput(root)).toEqual({ source, output });
  });

  it('names a new source file that was never built', () => {
    write('src/orders/new-rule.ts', BUILT);
    expect(staleOutput(root)).toEqual({
      source: 'src/orders/new-rule.ts',
      output: 'dist/orders/new-rule.js',
    });
  });

  it('names a compiled file whose source was deleted, so no removed migration or module is left to run', () => {
    write('dist/migrations/0-Removed.js', BUILT);
    expect(staleOutput(root)).toEqual({
      source: 'migrations/0-Removed.ts',
      output: 'dist/migrations/0-Removed.js',
    });
    rmSync(join(root, 'dist/migrations/0-Removed.js'));
    write('dist/orders/removed.js', BUILT);
    expect(staleOutput(root)).toEqual({ source: 'src/orders/removed.ts', output: 'dist/orders/removed.js' });
  });

  it('names the build as missing on a fresh clone', () => {
    rmSync(join(root, 'dist'), { recursive: true });
    expect(staleOutput(root)).toEqual({ source: 'src/main.ts', output: 'dist/main.js' });
  });
});
