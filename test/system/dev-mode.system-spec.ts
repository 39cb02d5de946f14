import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { runProcess } from '../harness/run-node';
import { startService, type RunningService } from '../harness/service';

const REPOSITORY = join(__dirname, '..', '..');
const MAIN = join(REPOSITORY, 'dist', 'main.js');

/** What a newcomer's first requests need: the service ready, the console served, the demo partner token working. */
async function expectUsable(service: RunningService, dataDir: string): Promise<void> {
  await request(service.url).get('/health/ready').expect(200);
  // fetch, not supertest: the console's static files are outside the OpenAPI document the harness checks against.
  const console = await fetch(`${service.url}/console/`);
  expect([console.status, console.headers.get('content-type')]).toEqual([200, expect.stringMatching(/html/)]);
  const partnerToken = readFileSync(join(dataDir, 'demo-partner.token'), 'utf8').trim();
  const products = await request(service.url)
    .get('/api/v2/product')
    .set('Authorization', `Bearer ${partnerToken}`)
    .expect(200);
  expect(products.body.data).toHaveLength(3);
}

describe('development mode and the embedded database of a fresh clone', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'roa-dev-'));
  chmodSync(workDir, 0o755);

  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('completes a first start that stopped before its demo data: the next start migrates and seeds', async () => {
    const cwd = join(workDir, 'half-way');
    mkdirSync(cwd);
    const failed = await runProcess(
      process.execPath,
      [MAIN],
      { MIGRATIONS_RUN: 'false', PORT: '0', METRICS_PORT: '0' },
      cwd,
    );
    expect(failed.code).toBe(1);
    expect(existsSync(join(cwd, '.data', 'demo-partner.token'))).toBe(false);

    const next = await startService({ embeddedDatabase: true, cwd });
    try {
      expect(next.output()).toContain('DEVELOPMENT ONLY');
      await expectUsable(next, join(cwd, '.data'));
    } finally {
      expect(await next.stop()).toBe(0);
    }
  }, 180_000);

  it('runs `npm run start:dev` from a fresh clone: migrated, seeded, console served, .data usable by `npm start`', async () => {
    const clone = join(workDir, 'clone');
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
      cwd: REPOSITORY,
      encoding: 'utf8',
    })
      .split('\0')
      .filter((file) => file && existsSync(join(REPOSITORY, file)));
    for (const file of files) {
      mkdirSync(dirname(join(clone, file)), { recursive: true });
      cpSync(join(REPOSITORY, file), join(clone, file));
    }
    execFileSync('cp', ['-al', join(REPOSITORY, 'node_modules'), join(clone, 'node_modules')]);
    const dataDir = join(clone, '.data');

    const dev = await startService({
      embeddedDatabase: true,
      cwd: clone,
      npmScript: 'start:dev',
      env: { HOME: process.env.HOME ?? clone },
    });
    try {
      expect(dev.output()).not.toMatch(/does not exist/);
      await expectUsable(dev, dataDir);
    } finally {
      await dev.stop();
    }

    const start = await startService({ embeddedDatabase: true, cwd: clone, checkout: clone });
    try {
      await expectUsable(start, dataDir);
    } finally {
      expect(await start.stop()).toBe(0);
    }
  }, 300_000);
});
