import { join } from 'node:path';
import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { type Body, Fixtures, orderBody, type Partner, unique } from './harness/factories';
import { runNode } from './harness/run-node';
import { openStoredCredential, TEST_DEVICE_CREDENTIALS_KEY } from './harness/test-database';

const MIGRATE = join(__dirname, '..', 'dist', 'platform', 'database', 'migrate.js');
const SEALING_MIGRATION = 'DeviceCredentialsSealed1795346872330';
const SEALED = /^v1:[\w-]{16}:[\w-]{22}:[\w-]+$/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('secrets: device credentials at rest and in logs (OWASP API3)', () => {
  let service: TestApp;
  let partner: Partner;
  let productId: number;

  const api = () => request(service.url);
  const bearer = () => `Bearer ${partner.token}`;
  const place = (body: Body) => api().post('/api/v2/order').set('Authorization', bearer()).send(body);

  async function placeOk(overrides: Body = {}): Promise<number> {
    const response = await place(orderBody(productId, overrides));
    expect(response.status).toBe(201);
    return Number(response.body.orders[0].order_id);
  }

  async function stored(id: number): Promise<{ login: string; password: string; whole: string }> {
    const { rows } = await service.db.query<{ login: string; password: string; whole: string }>(
      'SELECT login, password, o::text AS whole FROM orders o WHERE id = $1',
      [id],
    );
    return rows[0];
  }

  /** Every table of the database with a row whose text contains `value`. */
  async function tablesContaining(value: string): Promise<string[]> {
    const { rows: tables } = await service.db.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    const found: string[] = [];
    for (const { name } of tables) {
      const { rowCount } = await service.db.query(
        `SELECT 1 FROM "${name}" AS r WHERE strpos(r::text, $1) > 0 LIMIT 1`,
        [value],
      );
      if (rowCount) found.push(name);
    }
    return found;
  }

  const readBack = async (id: number) =>
    (await api().get(`/api/v2/order/${id}`).set('Authorization', bearer()).expect(200)).body as Body;

  beforeAll(async () => {
    service = await startApp();
    const fixtures = new Fixtures(service.url, await issueAdminToken(service));
    partner = await fixtures.partner('HU');
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await service.stop();
  });

  describe('at rest', () => {
    it('stores login and password sealed (AES-256-GCM), in no table in plain text, and returns them as submitted', async () => {
      const login = `login-${unique('plain')}`;
      const password = `pw-${unique('plain')}`;
      const email = `${unique('plain')}@example.com`;
      const id = await placeOk({ login, password, email });
      expect(await tablesContaining(email)).toEqual(['orders']);
      const row = await stored(id);
      expect(row.login).toMatch(SEALED);
      expect(row.password).toMatch(SEALED);
      expect(row.whole).not.toContain(login);
      expect(row.whole).not.toContain(password);
      expect(openStoredCredential(row.login)).toBe(login);
      expect(openStoredCredential(row.password)).toBe(password);
      expect(await tablesContaining(login)).toEqual([]);
      expect(await tablesContaining(password)).toEqual([]);
      expect(await readBack(id)).toMatchObject({ login, password });
      const list = await api().get(`/api/v2/order?order_id=${id}`).set('Authorization', bearer()).expect(200);
      expect(list.body.data).toEqual([expect.objectContaining({ order_id: id, login, password })]);
    });

    it('accepts 255-character credentials of multi-byte characters and gives them back unchanged', async () => {
      const login = 'ž'.repeat(255);
      const password = `${'😀'.repeat(126)}ÿ€x`;
      expect(password).toHaveLength(255);
      const id = await placeOk({ login, password });
      expect(await readBack(id)).toMatchObject({ login, password });
      const row = await stored(id);
      expect(openStoredCredential(row.password)).toBe(password);
    });

    it('seals a changed password on update and keeps the login it had', async () => {
      const login = `login-${unique('kept')}`;
      const id = await placeOk({ login });
      const password = `pw-${unique('changed')}`;
      await api()
        .post(`/api/v2/order/${id}/update`)
        .set('Authorization', bearer())
        .send({ password })
        .expect(200);
      const row = await stored(id);
      expect(row.whole).not.toContain(password);
      expect(openStoredCredential(row.password)).toBe(password);
      expect(await readBack(id)).toMatchObject({ login, password });
    });

    it('seals credentials stored in plain text by earlier versions when the migration runs, and needs the key for it', async () => {
      const id = await placeOk();
      const [login, password] = [`legacy-login-${unique('x')}`, `legacy-pw-${unique('x')}`];
      await service.db.query('UPDATE orders SET login = $2, password = $3 WHERE id = $1', [
        id,
        login,
        password,
      ]);
      await service.db.query('DELETE FROM migrations WHERE name = $1', [SEALING_MIGRATION]);
      // Reads at once: several of the app's connections prepare the order's statement, whose plan the migration
      // below makes stale on each of them (as another instance's migration does during a deploy).
      const readsAtOnce = () =>
        Promise.all(
          Array.from({ length: 8 }, () => api().get(`/api/v2/order/${id}`).set('Authorization', bearer())),
        );
      await readsAtOnce();

      const withoutKey = await runNode(MIGRATE, ['run'], { DATABASE_URL: service.databaseUrl });
      expect(withoutKey.code).toBe(1);
      expect(withoutKey.stderr.trim()).toMatch(
        /^Invalid environment variable DEVICE_CREDENTIALS_KEY: is required when DATABASE_URL is set/,
      );
      expect((await stored(id)).login).toBe(login);

      const migrated = await runNode(MIGRATE, ['run'], {
        DATABASE_URL: service.databaseUrl,
        DEVICE_CREDENTIALS_KEY: TEST_DEVICE_CREDENTIALS_KEY,
      });
      expect(migrated).toMatchObject({ code: 0 });
      expect(JSON.parse(migrated.stdout)).toEqual({ applied: [SEALING_MIGRATION] });
      const row = await stored(id);
      expect(row.login).toMatch(SEALED);
      expect(row.whole).not.toContain(password);
      expect((await readsAtOnce()).map((response) => response.status)).toEqual(Array(8).fill(200));
      expect(await readBack(id)).toMatchObject({ login, password });
    });

    it('answers 500 without detail for a stored value sealed under another key', async () => {
      const id = await placeOk();
      const foreign = 'v1:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA:AAAA';
      await service.db.query('UPDATE orders SET password = $2 WHERE id = $1', [id, foreign]);
      const response = await api().get(`/api/v2/order/${id}`).set('Authorization', bearer());
      expect({ status: response.status, body: response.body }).toEqual({
        status: 500,
        body: { message: 'Server error.' },
      });
    });
  });

  describe('in logs', () => {
    it('never writes authorization headers, tokens, logins or passwords, on success, on 400 and on 500', async () => {
      const secrets = {
        login: `login-NEVER-LOGGED-${unique('s')}`,
        password: `pw-NEVER-LOGGED-${unique('s')}`,
        bogusToken: `roa_${'B'.repeat(43)}`,
      };
      const body = orderBody(productId, { login: secrets.login, password: secrets.password });
      await place(body).expect(201);
      await place({ ...body, email: 'not-an-address' }).expect(400);
      await place({ ...body, login: [secrets.login], password: { value: secrets.password } }).expect(400);
      await api()
        .get(`/api/v2/order?access_token=${secrets.bogusToken}`)
        .set('Authorization', `Bearer ${secrets.bogusToken}`)
        .expect(401);

      const admin = await issueAdminToken(service);
      const issued = await api()
        .post('/api/v2/admin/tokens')
        .set('Authorization', `Bearer ${admin}`)
        .send({ role: 'logistics', user_name: unique('courier') })
        .expect(201);

      await service.db.query(
        "ALTER TABLE orders ADD CONSTRAINT secrets_spec_breaks CHECK (merchant_id <> 'M-BREAK') NOT VALID",
      );
      try {
        const failing = await place({ ...body, merchant_id: 'M-BREAK' }).set('X-Request-Id', 'secrets-500');
        expect({ status: failing.status, body: failing.body }).toEqual({
          status: 500,
          body: { message: 'Server error.' },
        });
      } finally {
        await service.db.query('ALTER TABLE orders DROP CONSTRAINT secrets_spec_breaks');
      }
      await sleep(200);
      const logged = service
        .logs()
        .find((line) => line.requestId === 'secrets-500' && line.msg === 'Unhandled error');
      expect(JSON.stringify(logged)).toContain('secrets_spec_breaks');
      const output = service.output();
      for (const secret of [
        secrets.login,
        secrets.password,
        secrets.bogusToken,
        partner.token,
        admin,
        issued.body.token as string,
        body.email as string,
      ]) {
        expect(output).not.toContain(secret);
      }
    });
  });
});
