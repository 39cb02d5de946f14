// `npm run build` (and `npm pack`, before packing): the package's two builds from src/, with their declarations.
// dist/esm for `import` (ES modules) and dist/cjs for `require` (CommonJS, TypeScript's `module: node16`
// projects among them); package.json's `exports` points each condition at its own, and the package.json each
// folder gets tells Node (and TypeScript) which module system its .js files use. The command-line tool (src/cli,
// the `bin`) joins the ES modules.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync('dist', { recursive: true, force: true });
for (const [config, folder, type] of [
  ['tsconfig.json', 'dist/esm', 'module'],
  ['tsconfig.cjs.json', 'dist/cjs', 'commonjs'],
  ['tsconfig.cli.json', 'dist/esm', 'module'],
]) {
  execFileSync(process.execPath, [tsc, '-p', config], { stdio: 'inherit' });
  mkdirSync(folder, { recursive: true });
  writeFileSync(`${folder}/package.json`, `${JSON.stringify({ type })}\n`);
}
