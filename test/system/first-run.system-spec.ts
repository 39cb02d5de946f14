import { execFileSync } from 'node:child_process';
import { cpSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ROOT_RUNTIME_DIR } from '../../src/platform/database/root-runtime';
import { startService } from '../harness/service';

const REPOSITORY = join(__dirname, '..', '..');
const asRoot = process.getuid?.() === 0;

/**
 * The first run of a clone under a folder only root may enter (a clone in /root, or in `mktemp -d`). The
 * clone gets this checkout's build and a hard-linked copy of its node_modules (what `npm install && npm start`
 * would produce, without the minutes of an install): both inside the private folder, as after a real install.
 */
(asRoot ? describe : describe.skip)('npm start as root in a folder the postgres user cannot enter', () => {
  const privateDir = mkdtempSync(join(tmpdir(), 'roa-private-'));
  const clone = join(privateDir, 'restaurant-orders');
  let clusterDir: string | undefined;

  afterAll(() => {
    rmSync(privateDir, { recursive: true, force: true });
    if (clusterDir?.startsWith(`${ROOT_RUNTIME_DIR}/`)) rmSync(clusterDir, { recursive: true, force: true });
  });

  it('starts the embedded PostgreSQL from binaries and a cluster placed within its reach, and serves', async () => {
    expect(statSync(privateDir).mode & 0o777).toBe(0o700);
    execFileSync('git', ['clone', '--quiet', REPOSITORY, clone]);
    execFileSync('cp', ['-al', join(REPOSITORY, 'node_modules'), join(clone, 'node_modules')]);
    cpSync(join(REPOSITORY, 'dist'), join(clone, 'dist'), { recursive: true });

    const service = await startService({ embeddedDatabase: true, cwd: clone, checkout: clone });
    try {
      const link = join(clone, '.data', 'postgres');
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      clusterDir = readlinkSync(link);
      expect(clusterDir).toMatch(new RegExp(`^${ROOT_RUNTIME_DIR}/clusters/[0-9a-f]{16}$`));
      await request(service.url).get('/health/ready').expect(200);
      const partnerToken = readFileSync(join(clone, '.data', 'demo-partner.token'), 'utf8').trim();
      const products = await request(service.url)
        .get('/api/v2/product')
        .set('Authorization', `Bearer ${partnerToken}`)
        .expect(200);
      expect(products.body.data).toHaveLength(3);
    } finally {
      expect(await service.stop()).toBe(0);
    }
    expect(service.output()).not.toMatch(/EACCES|^\s+at /m);
  }, 180_000);
});
