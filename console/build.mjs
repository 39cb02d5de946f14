// Builds the admin console into dist/console: one script, one style sheet, the page and its icon, all from
// npm packages bundled here (no CDN), so it works offline and under a CSP of 'self' only.
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist', 'console');

await mkdir(out, { recursive: true });
await build({
  entryPoints: [
    { in: join(here, 'src', 'main.tsx'), out: 'app' },
    { in: join(here, 'src', 'styles.css'), out: 'app' },
  ],
  outdir: out,
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  logLevel: 'warning',
});
for (const file of ['index.html', 'favicon.svg']) await copyFile(join(here, file), join(out, file));
