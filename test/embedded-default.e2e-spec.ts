import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startService } from './harness/service';

describe('npm start with no DATABASE_URL (the embedded default)', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'roa-embedded-'));
  chmodSync(workDir, 0o755);
  const dataDir = join(workDir, '.data');

  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('creates a PostgreSQL in ./.data, seeds demo data once, keeps it across restarts, and stops it on SIGTERM', async () => {
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
    expect(await first.stop()).toBe(0);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    const second = await startService({ embeddedDatabase: true, cwd: workDir });
    try {
      expect(second.output()).not.toContain('DEVELOPMENT ONLY');
      const again = await request(second.url)
        .get('/api/v2/admin/companies')
        .set('Authorization', `Bearer ${adminToken}`)
        .expect(200);
      expect(again.body.data).toHaveLength(1);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});
