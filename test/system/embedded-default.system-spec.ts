import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { findFreePort } from '../../src/platform/database/free-port';
import { eventually } from '../harness/eventually';
import { orderBody } from '../harness/factories';
import { startService } from '../harness/service';

const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');

describe('npm start with no DATABASE_URL (the embedded default)', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'roa-embedded-'));
  chmodSync(workDir, 0o755);
  const dataDir = join(workDir, '.data');

  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('creates a PostgreSQL and a device-credentials key in ./.data, seeds demo data once, keeps both across restarts, and stops on SIGTERM', async () => {
    const first = await startService({ embeddedDatabase: true, cwd: workDir });
    await request(first.url).get('/health/ready').expect(200);
    expect(first.output()).toContain('DEVELOPMENT ONLY');
    const adminFile = join(dataDir, 'demo-admin.token');
    expect(statSync(adminFile).mode & 0o777).toBe(0o600);
    const adminToken = readFileSync(adminFile, 'utf8').trim();
    const partnerToken = readFileSync(join(dataDir, 'demo-partner.token'), 'utf8').trim();
    expect(first.output()).not.toContain(adminToken);
    expect(first.output()).not.toContain(partnerToken);
    const companies = await request(first.url)
      .get('/api/v2/admin/companies')
      .set('Authorization', `Bearer ${adminToken}`)
      .expect(200);
    expect(companies.body.data).toEqual([expect.objectContaining({ name: 'Demo Restaurants', site: 'SK' })]);
    const keyFile = join(dataDir, 'device-credentials.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile, 'utf8').trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(first.output()).not.toContain(key);
    const credentials = { login: 'embedded-login', password: 'embedded-password' };
    const placed = await request(first.url)
      .post('/api/v2/order')
      .set('Authorization', `Bearer ${partnerToken}`)
      .send(orderBody(1, { product_variation_id: 1, ...credentials }))
      .expect(201);
    expect(await first.stop()).toBe(0);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    const second = await startService({ embeddedDatabase: true, cwd: workDir });
    try {
      // The reminder is printed once listening, so it may follow the first answer the harness waits for.
      const docs = `API documentation: http://localhost:${new URL(second.url).port}/api/docs`;
      await eventually(
        () => second.output().includes(docs),
        () => `no reminder after the second start:\n${second.output()}`,
      );
      expect(second.output()).not.toContain('DEVELOPMENT ONLY');
      expect(second.output()).toContain(
        'its demo tokens are in .data/demo-partner.token and .data/demo-admin.token.',
      );
      const again = await request(second.url)
        .get('/api/v2/admin/companies')
        .set('Authorization', `Bearer ${adminToken}`)
        .expect(200);
      expect(again.body.data).toHaveLength(1);
      const order = await request(second.url)
        .get(`/api/v2/order/${placed.body.orders[0].order_id}`)
        .set('Authorization', `Bearer ${partnerToken}`)
        .expect(200);
      expect(order.body).toMatchObject(credentials);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, 180_000);
});

describe('a fresh ./.data under one service', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'roa-embedded-'));
  chmodSync(workDir, 0o755);
  const dataDir = join(workDir, '.data');

  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('is ready only once the demo tokens exist; a second service in the folder refuses in one line, and the first keeps its database', async () => {
    const port = await findFreePort();
    const url = `http://127.0.0.1:${port}`;
    const first = spawn(process.execPath, [MAIN], {
      cwd: workDir,
      env: { PATH: process.env.PATH, PORT: String(port), METRICS_PORT: '0' },
      stdio: 'ignore',
    });
    const exited = once(first, 'exit');
    try {
      const tokenFiles = ['demo-partner.token', 'demo-admin.token'].map((file) => join(dataDir, file));
      await eventually(
        async () =>
          (await request(url)
            .get('/health/ready')
            .then(
              (response) => response.status,
              () => 0,
            )) === 200,
        () => 'never ready',
        90_000,
      );
      expect(tokenFiles.filter((file) => !existsSync(file))).toEqual([]);

      // Bounded either way: a second service that starts anyway is stopped at once.
      const second = await startService({ embeddedDatabase: true, cwd: workDir }).then(
        async (service) => `it started: ${String(await service.stop())}`,
        (error: Error) => error.message,
      );
      expect(second).toMatch(
        /^The service exited with 1 before listening:\nDATABASE_URL is not set and the embedded database in \.data is already run by another process[^\n]*\n$/,
      );

      const partnerToken = readFileSync(tokenFiles[0], 'utf8').trim();
      await request(url).get('/api/v2/product').set('Authorization', `Bearer ${partnerToken}`).expect(200);
    } finally {
      first.kill('SIGTERM');
      expect((await exited)[0]).toBe(0);
    }
  }, 180_000);
});

describe('a service killed without stopping its embedded PostgreSQL', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'roa-embedded-'));
  chmodSync(workDir, 0o755);
  const dataDir = join(workDir, '.data');
  const pidFile = join(dataDir, 'postgres', 'postmaster.pid');

  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('leaves a server that the next start stops and starts again for itself, with every order kept', async () => {
    const first = await startService({ embeddedDatabase: true, cwd: workDir });
    const partnerToken = readFileSync(join(dataDir, 'demo-partner.token'), 'utf8').trim();
    const placed = await request(first.url)
      .post('/api/v2/order')
      .set('Authorization', `Bearer ${partnerToken}`)
      .send(orderBody(1, { product_variation_id: 1 }))
      .expect(201);
    const serverPid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
    expect(await first.stop('SIGKILL')).toBeNull();
    expect(() => process.kill(serverPid, 0)).not.toThrow();

    const second = await startService({ embeddedDatabase: true, cwd: workDir });
    try {
      expect(second.output()).toContain(
        `The embedded PostgreSQL in .data (pid ${serverPid}) was left running by a process that ended without stopping it: stopped, and started again for this service.`,
      );
      expect(Number.parseInt(readFileSync(pidFile, 'utf8'), 10)).not.toBe(serverPid);
      await request(second.url)
        .get(`/api/v2/order/${placed.body.orders[0].order_id}`)
        .set('Authorization', `Bearer ${partnerToken}`)
        .expect(200);
    } finally {
      expect(await second.stop()).toBe(0);
    }
    expect(existsSync(pidFile)).toBe(false);
  }, 180_000);
});
