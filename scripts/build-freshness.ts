// `npm run build:fresh`: runs `npm run build` only when dist/ is older than a source (or holds a compiled file whose
// source is gone), so the commands that need a build (migration:check, lint:openapi, client:check, the specs'
// global set-up) do not build again what is current.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * A source file written after the compiled file that `npm run build` makes from it (or with none made), or a
 * compiled file whose source was deleted (`source` no longer exists).
 */
export interface StaleOutput {
  source: string;
  output: string;
}

/** Settings every compiled file depends on: a change to one makes the whole build stale. */
const BUILD_SETTINGS = [
  'package-lock.json',
  'nest-cli.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.migrations.json',
];

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

const modified = (file: string): number => statSync(file).mtimeMs;

/**
 * Each file `npm run build` reads, with the file it writes from it: src/x.ts → dist/x.js (what `nest start
 * --watch` rewrites too, one file at a time), migrations/x.ts → dist/migrations/x.js, the console's sources →
 * dist/console/index.html (written last), the build settings → dist/main.js.
 */
function buildPairs(root: string): StaleOutput[] {
  const dist = join(root, 'dist');
  const compiled = (folder: string, output: string) =>
    filesUnder(join(root, folder))
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && !file.endsWith('.d.ts'))
      .map((source) => ({
        source,
        output: join(dist, output, relative(join(root, folder), source).replace(/\.ts$/, '.js')),
      }));
  const consoleSources = [...filesUnder(join(root, 'console', 'src')), join(root, 'console', 'index.html')];
  return [
    ...compiled('src', '.'),
    ...compiled('migrations', 'migrations'),
    ...consoleSources.map((source) => ({ source, output: join(dist, 'console', 'index.html') })),
    ...BUILD_SETTINGS.map((name) => ({ source: join(root, name), output: join(dist, 'main.js') })),
  ];
}

/** The compiled files of dist/ (the console's bundle aside) whose source no longer exists. */
function orphans(root: string): StaleOutput[] {
  const dist = join(root, 'dist');
  return filesUnder(dist)
    .filter((output) => output.endsWith('.js') && !output.startsWith(join(dist, 'console')))
    .map((output) => {
      const compiled = relative(dist, output).replace(/\.js$/, '.ts');
      const source = compiled.startsWith('migrations/') ? compiled : join('src', compiled);
      return { source: join(root, source), output };
    })
    .filter(({ source }) => !existsSync(source));
}

/**
 * The first source whose compiled file is missing or older than it, or else the first compiled file whose source
 * is gone, paths relative to `root`; none when dist/ is current.
 */
export function staleOutput(root: string): StaleOutput | undefined {
  const stale =
    buildPairs(root).find(
      ({ source, output }) =>
        existsSync(source) && (!existsSync(output) || modified(output) < modified(source)),
    ) ?? orphans(root)[0];
  return stale && { source: relative(root, stale.source), output: relative(root, stale.output) };
}

/** Runs `npm run build` in `root` when dist/ is not current, saying why on stderr; false when the build failed. */
export function buildWhenStale(root: string): boolean {
  const stale = staleOutput(root);
  if (!stale) return true;
  const why = existsSync(join(root, stale.source))
    ? `${stale.output} is older than ${stale.source}`
    : `${stale.output} was built from ${stale.source}, which is gone`;
  console.error(`${why}: running npm run build first.`);
  return spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' }).status === 0;
}

if (require.main === module) process.exitCode = buildWhenStale(resolve(__dirname, '..')) ? 0 : 1;
