// Lints the OpenAPI document of the built service (GET /api/docs-json), or the document in the file given as
// the one argument, with Redocly's recommended rules (redocly.yaml) and with Spectral and the OWASP ruleset
// (.spectral.yaml): fails on a Redocly error or a Spectral warning (both rulesets are at 0 problems; each rule
// turned off or replaced says why). test/system/openapi-lint.system-spec.ts lints altered copies through the argument.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchServedDocument } from './served-openapi.mjs';

const dir = mkdtempSync(join(tmpdir(), 'roa-openapi-'));
try {
  let file = process.argv[2];
  if (!file) {
    file = join(dir, 'openapi.json');
    writeFileSync(file, await fetchServedDocument());
  }
  const linters = [
    ['redocly', 'lint', file, '--config', 'redocly.yaml', '--max-problems', '1000'],
    ['spectral', 'lint', file, '--ruleset', '.spectral.yaml', '--fail-severity', 'warn'],
  ];
  const failed = linters.filter(
    (args) => spawnSync('npx', ['--no-install', ...args], { stdio: 'inherit' }).status !== 0,
  );
  process.exitCode = failed.length === 0 ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
