// Lints the OpenAPI document of a running service (GET /api/docs-json) with Spectral and the OWASP ruleset
// (.spectral.yaml). Starts the compiled service on a free port with the environment as given (no DATABASE_URL:
// the embedded default in ./.data), fetches the document, stops the service, then runs Spectral on it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const START_TIMEOUT_MS = 60_000;

function startService() {
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('The service did not start in time.')), START_TIMEOUT_MS);
    let pending = '';
    child.stdout.on('data', (chunk) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line);
        if (entry.event === 'listening') {
          clearTimeout(timer);
          resolve({ child, port: entry.port });
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The service exited with ${code} before listening.`));
    });
  });
}

async function fetchDocument() {
  const { child, port } = await startService();
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/docs-json`);
    if (!response.ok) throw new Error(`GET /api/docs-json answered ${response.status}.`);
    return await response.text();
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'roa-openapi-'));
try {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, await fetchDocument());
  const spectral = spawnSync(
    'npx',
    ['--no-install', 'spectral', 'lint', file, '--ruleset', '.spectral.yaml', '--fail-severity', 'warn'],
    { stdio: 'inherit' },
  );
  process.exitCode = spectral.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
