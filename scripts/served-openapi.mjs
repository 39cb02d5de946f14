// The OpenAPI document the compiled service serves (GET /api/docs-json): starts `node dist/main.js` on a free
// port with the environment as given (no DATABASE_URL: the embedded default in ./.data), fetches the document,
// stops the service. Shared by lint-openapi.mjs and generate-client.mjs.
import { spawn } from 'node:child_process';

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

/** The document as served, as text. */
export async function fetchServedDocument() {
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
