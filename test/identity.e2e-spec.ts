import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { runCli } from './harness/cli';

/** An API datetime: minutes, no seconds, no zone (CONTRACT §2). */
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;
const TOKEN_SHAPE = /^roa_[A-Za-z0-9_-]{43}$/;
const UNAUTHENTICATED = { message: 'Unauthenticated.' };
const FORBIDDEN = { message: 'Forbidden.' };

let counter = 0;
const unique = (label: string): string => `${label}-${process.pid}-${(counter += 1)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface CompanyView {
  id: number;
  name: string;
  site: string;
  created_at: string;
}

interface TokenView {
  id: number;
  prefix: string;
  role: string;
  user_name: string;
  company_id: number | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  read_only: boolean;
  rolled_at: string | null;
  previous_expires_at: string | null;
}

interface IssuedToken extends TokenView {
  token: string;
}

describe('identity: tokens, roles, the admin API and the audit trail', () => {
  let service: TestApp;
  let admin: string;
  let adminId: number;

  const bearer = (token: string) => `Bearer ${token}`;
  const api = () => request(service.url);

  async function createCompany(
    overrides: Partial<{ name: string; site: string }> = {},
  ): Promise<CompanyView> {
    const response = await api()
      .post('/api/v2/admin/companies')
      .set('Authorization', bearer(admin))
      .send({ name: unique('Bistro'), site: 'SK', ...overrides });
    expect(response.status).toBe(201);
    return response.body as CompanyView;
  }

  async function issueToken(
    body: Record<string, unknown>,
    token: string = admin,
    requestId?: string,
  ): Promise<IssuedToken> {
    const call = api().post('/api/v2/admin/tokens').set('Authorization', bearer(token));
    if (requestId) call.set('X-Request-Id', requestId);
    const response = await call.send({ user_name: unique('user'), ...body });
    expect(response.status).toBe(201);
    return response.body as IssuedToken;
  }

  async function issuePartner(): Promise<IssuedToken> {
    const company = await createCompany();
    return issueToken({ role: 'partner', company_id: company.id });
  }

  async function count(table: 'companies' | 'api_tokens' | 'audit_events'): Promise<number> {
    const result = await service.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
    return Number(result.rows[0].n);
  }

  const viewOf = ({ token: _secret, ...view }: IssuedToken): TokenView => view;

  beforeAll(async () => {
    service = await startApp({
      env: { RATE_LIMIT_PER_MINUTE: '10000', ADMIN_RATE_LIMIT_PER_MINUTE: '10000' },
    });
    admin = await issueAdminToken(service);
    const row = await service.db.query<{ id: number }>('SELECT id FROM api_tokens WHERE prefix = $1', [
      admin.slice(0, 12),
    ]);
    adminId = row.rows[0].id;
  });

  afterAll(async () => {
    await service.stop();
  });

  describe('validation messages', () => {
    it('refuses names made of whitespace alone as missing', async () => {
      const before = await count('companies');
      const company = await api()
        .post('/api/v2/admin/companies')
        .set('Authorization', bearer(admin))
        .send({ name: '   ', site: 'SK' });
      expect(company.status).toBe(400);
      expect(company.body).toEqual({
        message: 'Bad request.',
        errors: { name: ['The name field is required.'] },
      });
      const token = await api()
        .post('/api/v2/admin/tokens')
        .set('Authorization', bearer(admin))
        .send({ role: 'admin', user_name: '\t ' });
      expect(token.body).toEqual({
        message: 'Bad request.',
        errors: { user_name: ['The user name field is required.'] },
      });
      expect(await count('companies')).toBe(before);
    });

    it('reports the one rule a field breaks, not every rule it has', async () => {
      const page = await api()
        .get('/api/v2/admin/companies?page=abc&per_page=0')
        .set('Authorization', bearer(admin));
      expect(page.body).toEqual({
        message: 'Bad request.',
        errors: {
          page: ['The page must be an integer.'],
          per_page: ['The per page must be between 1 and 25.'],
        },
      });
      const wrongType = await api()
        .post('/api/v2/admin/companies')
        .set('Authorization', bearer(admin))
        .send({ name: 5, site: 'SK' });
      expect(wrongType.body).toEqual({
        message: 'Bad request.',
        errors: { name: ['The name must be a string.'] },
      });
      const missing = await api()
        .post('/api/v2/admin/companies')
        .set('Authorization', bearer(admin))
        .send({});
      expect(missing.body).toEqual({
        message: 'Bad request.',
        errors: { name: ['The name field is required.'], site: ['The site field is required.'] },
      });
    });
  });

  describe('revocation across instances', () => {
    it('refuses a revoked token at once on another instance that had just accepted it', async () => {
      const other = await startApp({ env: { DATABASE_URL: service.databaseUrl } });
      try {
        const partner = await issuePartner();
        await request(other.url)
          .get('/api/v2/admin/companies')
          .set('Authorization', bearer(partner.token))
          .expect(403);
        await api()
          .delete(`/api/v2/admin/tokens/${partner.id}`)
          .set('Authorization', bearer(admin))
          .expect(200);
        await sleep(200);
        await request(other.url)
          .get('/api/v2/admin/companies')
          .set('Authorization', bearer(partner.token))
          .expect(401, UNAUTHENTICATED);
      } finally {
        await other.stop();
      }
    });
  });

  describe('companies', () => {
    it('creates a company and stores its site in upper case', async () => {
      const name = unique('Pizzeria Roma');
      const response = await api()
        .post('/api/v2/admin/companies')
        .set('Authorization', bearer(admin))
        .send({ name, site: 'sk' });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.any(Number),
        name,
        site: 'SK',
        created_at: expect.stringMatching(DATETIME),
      });
      const stored = await service.db.query('SELECT name, site FROM companies WHERE id = $1', [
        response.body.id,
      ]);
      expect(stored.rows).toEqual([{ name, site: 'SK' }]);
    });

    it.each([
      ['a missing name', { site: 'SK' }, 'name'],
      ['an empty name', { name: '', site: 'SK' }, 'name'],
      ['a name over 255 characters', { name: 'x'.repeat(256), site: 'SK' }, 'name'],
      ['a three-letter site', { name: 'Three', site: 'SVK' }, 'site'],
      ['a site with digits', { name: 'Digits', site: 'S1' }, 'site'],
    ])('refuses %s with 400 naming the field, and stores nothing', async (_case, body, field) => {
      const before = await count('companies');
      const response = await api()
        .post('/api/v2/admin/companies')
        .set('Authorization', bearer(admin))
        .send(body);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        message: 'Bad request.',
        errors: { [field]: expect.arrayContaining([expect.any(String)]) },
      });
      expect(await count('companies')).toBe(before);
    });

    it('accepts a name of exactly 255 characters', async () => {
      const name = unique('n').padEnd(255, 'n');
      const company = await createCompany({ name });
      expect(company.name).toBe(name);
    });

    it('lists companies by id, page by page, with absolute links', async () => {
      await createCompany();
      await createCompany();
      await createCompany();
      const ids = await service.db.query<{ id: number }>('SELECT id FROM companies ORDER BY id LIMIT 3');
      const second = ids.rows[1].id;
      const path = `${service.url}/api/v2/admin/companies`;
      const response = await api()
        .get('/api/v2/admin/companies?page=2&per_page=1')
        .set('Authorization', bearer(admin));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        data: [
          { id: second, name: expect.any(String), site: 'SK', created_at: expect.stringMatching(DATETIME) },
        ],
        links: {
          first: `${path}?page=1&per_page=1`,
          last: null,
          prev: `${path}?page=1&per_page=1`,
          next: `${path}?page=3&per_page=1`,
        },
        meta: { current_page: 2, from: 2, path, per_page: 1, to: 2 },
      });
    });

    it('shows 25 companies per page by default', async () => {
      const response = await api().get('/api/v2/admin/companies').set('Authorization', bearer(admin));
      expect(response.status).toBe(200);
      expect(response.body.meta).toMatchObject({ current_page: 1, per_page: 25 });
      expect(response.body.links.prev).toBeNull();
      expect(response.body.data.length).toBeLessThanOrEqual(25);
    });

    it.each([
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['page=-1', 'page'],
      ['per_page=0', 'per_page'],
      ['per_page=26', 'per_page'],
      ['per_page=ten', 'per_page'],
    ])('refuses ?%s with 400 naming %s', async (query, field) => {
      const response = await api()
        .get(`/api/v2/admin/companies?${query}`)
        .set('Authorization', bearer(admin));
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        message: 'Bad request.',
        errors: { [field]: expect.arrayContaining([expect.any(String)]) },
      });
    });
  });

  describe('tokens', () => {
    it('issues a partner token, shows its secret once, and stores only a 32-byte hash', async () => {
      const company = await createCompany();
      const userName = unique('alice');
      const response = await api()
        .post('/api/v2/admin/tokens')
        .set('Authorization', bearer(admin))
        .send({ role: 'partner', user_name: userName, company_id: company.id });
      expect(response.status).toBe(201);
      const token = response.body.token as string;
      expect(token).toMatch(TOKEN_SHAPE);
      expect(response.body).toEqual({
        id: expect.any(Number),
        prefix: token.slice(0, 12),
        role: 'partner',
        user_name: userName,
        company_id: company.id,
        created_at: expect.stringMatching(DATETIME),
        last_used_at: null,
        expires_at: null,
        revoked_at: null,
        read_only: false,
        rolled_at: null,
        previous_expires_at: null,
        token,
      });
      const stored = await service.db.query('SELECT * FROM api_tokens WHERE id = $1', [response.body.id]);
      expect(stored.rows).toHaveLength(1);
      const row = stored.rows[0] as Record<string, unknown>;
      expect(row).toMatchObject({ role: 'partner', user_name: userName, company_id: company.id });
      expect(Buffer.isBuffer(row.token_hash)).toBe(true);
      expect((row.token_hash as Buffer).length).toBe(32);
      for (const value of Object.values(row)) {
        const text = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
        expect(text).not.toContain(token);
      }
      const everything = await service.db.query('SELECT * FROM api_tokens');
      expect(JSON.stringify(everything.rows)).not.toContain(token);
    });

    it.each(['admin', 'logistics'])('issues a %s token with no company and an expiry', async (role) => {
      const token = await issueToken({ role, expires_at: '2099-12-31T23:59' });
      expect(token).toMatchObject({
        role,
        company_id: null,
        expires_at: '2099-12-31T23:59',
        revoked_at: null,
      });
      expect(token.token).toMatch(TOKEN_SHAPE);
      expect(token.prefix).toBe(token.token.slice(0, 12));
    });

    it.each([
      ['a partner token without company_id', { role: 'partner' }, 'company_id'],
      ['an admin token with a company_id', { role: 'admin', company_id: 'COMPANY' }, 'company_id'],
      ['a logistics token with a company_id', { role: 'logistics', company_id: 'COMPANY' }, 'company_id'],
      ['a partner token of an unknown company', { role: 'partner', company_id: 987654 }, 'company_id'],
      ['an unknown role', { role: 'owner' }, 'role'],
      ['a missing role', {}, 'role'],
      ['an expiry in the past', { role: 'admin', expires_at: '2020-01-01T00:00' }, 'expires_at'],
      ['an impossible date (30 February)', { role: 'admin', expires_at: '2099-02-30T10:00' }, 'expires_at'],
      ['an impossible month', { role: 'admin', expires_at: '2099-13-01T10:00' }, 'expires_at'],
      ['an expiry that is no datetime', { role: 'admin', expires_at: 'tomorrow' }, 'expires_at'],
    ])('refuses %s with 400 naming the field, and stores nothing', async (_case, body, field) => {
      const company = await createCompany();
      const payload: Record<string, unknown> = { user_name: unique('bob'), ...body };
      if (payload.company_id === 'COMPANY') payload.company_id = company.id;
      const before = await count('api_tokens');
      const response = await api()
        .post('/api/v2/admin/tokens')
        .set('Authorization', bearer(admin))
        .send(payload);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        message: 'Bad request.',
        errors: { [field]: expect.arrayContaining([expect.any(String)]) },
      });
      expect(await count('api_tokens')).toBe(before);
    });

    it("lists one company's tokens without any secret", async () => {
      const company = await createCompany();
      const other = await createCompany();
      const first = await issueToken({ role: 'partner', company_id: company.id });
      const second = await issueToken({ role: 'partner', company_id: company.id });
      const foreign = await issueToken({ role: 'partner', company_id: other.id });
      const response = await api()
        .get(`/api/v2/admin/tokens?company_id=${company.id}`)
        .set('Authorization', bearer(admin));
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([viewOf(first), viewOf(second)]);
      for (const token of response.body.data as Record<string, unknown>[])
        expect(Object.keys(token)).not.toContain('token');
      const text = JSON.stringify(response.body);
      expect(text).not.toContain(first.token);
      expect(text).not.toContain(second.token);
      expect(text).not.toContain(foreign.token);
    });

    it('never shows a secret in the unfiltered list either', async () => {
      const issued = await issuePartner();
      const response = await api()
        .get('/api/v2/admin/tokens?per_page=25')
        .set('Authorization', bearer(admin));
      expect(response.status).toBe(200);
      expect(JSON.stringify(response.body)).not.toContain(issued.token);
      expect(JSON.stringify(response.body)).not.toContain(admin);
    });

    it('revokes a token: 200 with revoked_at, stored, and the token is refused from its next request on', async () => {
      const issued = await issuePartner();
      await api().get('/api/v2/admin/companies').set('Authorization', bearer(issued.token)).expect(403);
      const response = await api()
        .delete(`/api/v2/admin/tokens/${issued.id}`)
        .set('Authorization', bearer(admin));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        ...viewOf(issued),
        last_used_at: expect.anything(),
        revoked_at: expect.stringMatching(DATETIME),
      });
      expect(response.body.token).toBeUndefined();
      const stored = await service.db.query('SELECT revoked_at FROM api_tokens WHERE id = $1', [issued.id]);
      expect(stored.rows[0].revoked_at).toBeInstanceOf(Date);
      await api()
        .get('/api/v2/admin/companies')
        .set('Authorization', bearer(issued.token))
        .expect(401, UNAUTHENTICATED);
    });

    it.each(['987654', 'abc', '1.5'])(
      'answers DELETE /admin/tokens/%s with 404 "Token not found."',
      async (id) => {
        const before = await count('audit_events');
        await api()
          .delete(`/api/v2/admin/tokens/${id}`)
          .set('Authorization', bearer(admin))
          .expect(404, { message: 'Token not found.' });
        expect(await count('audit_events')).toBe(before);
      },
    );

    it('records when a token was last used', async () => {
      const issued = await issuePartner();
      expect(issued.last_used_at).toBeNull();
      await api().get('/api/v2/admin/tokens').set('Authorization', bearer(issued.token)).expect(403);
      let seen: TokenView | undefined;
      for (let attempt = 0; attempt < 20; attempt += 1) {
        const list = await api()
          .get(`/api/v2/admin/tokens?company_id=${issued.company_id}`)
          .set('Authorization', bearer(admin))
          .expect(200);
        seen = (list.body.data as TokenView[]).find((token) => token.id === issued.id);
        if (seen?.last_used_at) break;
        await sleep(100);
      }
      expect(seen?.last_used_at).toMatch(DATETIME);
    });
  });

  describe('authentication', () => {
    it.each([
      ['no Authorization header', undefined],
      ['the Basic scheme', 'Basic xyz'],
      ['the Token scheme', 'Token abc'],
      ['a bearer without a token', 'Bearer '],
      ['a token that is not ours', `Bearer roa_${'A'.repeat(43)}`],
      ['a value of the wrong shape', 'Bearer not-a-token'],
    ])('answers %s with 401 {"message":"Unauthenticated."}', async (_case, header) => {
      for (const [method, path] of [
        ['get', '/api/v2/admin/companies'],
        ['post', '/api/v2/admin/tokens'],
        ['get', '/api/v2/admin/audit-events'],
      ] as const) {
        const call = api()[method](path);
        if (header !== undefined) call.set('Authorization', header);
        const response = await call.send(method === 'post' ? { role: 'admin', user_name: 'x' } : undefined);
        expect({ path, status: response.status, body: response.body }).toEqual({
          path,
          status: 401,
          body: UNAUTHENTICATED,
        });
      }
    });

    it('refuses a valid token sent in the URL as access_token (proxies and browsers log URLs)', async () => {
      const response = await api().get(`/api/v2/admin/companies?access_token=${admin}`);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 401,
        body: UNAUTHENTICATED,
      });
      await api().get('/api/v2/admin/companies').set('Authorization', bearer(admin)).expect(200);
    });

    it('refuses an expired token that was never used before', async () => {
      const issued = await issueToken({ role: 'admin', expires_at: '2099-12-31T23:59' });
      await service.db.query("UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [
        issued.id,
      ]);
      await api()
        .get('/api/v2/admin/companies')
        .set('Authorization', bearer(issued.token))
        .expect(401, UNAUTHENTICATED);
    });

    it('refuses a token that expires while in use, within the 5-second cache', async () => {
      const issued = await issueToken({ role: 'admin', expires_at: '2099-12-31T23:59' });
      await api().get('/api/v2/admin/companies').set('Authorization', bearer(issued.token)).expect(200);
      await service.db.query("UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [
        issued.id,
      ]);
      await sleep(5_100);
      await api()
        .get('/api/v2/admin/companies')
        .set('Authorization', bearer(issued.token))
        .expect(401, UNAUTHENTICATED);
    });

    it('accepts an admin token on every admin route group', async () => {
      for (const path of ['/api/v2/admin/companies', '/api/v2/admin/tokens', '/api/v2/admin/audit-events'])
        await api().get(path).set('Authorization', bearer(admin)).expect(200);
    });

    it('answers the health routes without a token', async () => {
      await api().get('/health/live').expect(200);
      await api().get('/health/ready').expect(200);
    });
  });

  describe('roles', () => {
    it.each(['partner', 'logistics'])(
      'answers a %s token with 403 on every admin route, and changes nothing',
      async (role) => {
        const company = await createCompany();
        const issued = await issueToken(role === 'partner' ? { role, company_id: company.id } : { role });
        const before = {
          companies: await count('companies'),
          tokens: await count('api_tokens'),
          audit: await count('audit_events'),
        };
        const calls = [
          api().get('/api/v2/admin/companies'),
          api()
            .post('/api/v2/admin/companies')
            .send({ name: unique('Sneaky'), site: 'SK' }),
          api().get('/api/v2/admin/tokens'),
          api().get(`/api/v2/admin/tokens?company_id=${company.id}`),
          api()
            .post('/api/v2/admin/tokens')
            .send({ role: 'admin', user_name: unique('escalate') }),
          api().delete(`/api/v2/admin/tokens/${issued.id}`),
          api().get('/api/v2/admin/audit-events'),
        ];
        for (const call of calls) {
          const response = await call.set('Authorization', bearer(issued.token));
          expect({ url: response.request.url, status: response.status, body: response.body }).toEqual({
            url: response.request.url,
            status: 403,
            body: FORBIDDEN,
          });
        }
        expect({
          companies: await count('companies'),
          tokens: await count('api_tokens'),
          audit: await count('audit_events'),
        }).toEqual(before);
        const stored = await service.db.query('SELECT revoked_at FROM api_tokens WHERE id = $1', [issued.id]);
        expect(stored.rows[0].revoked_at).toBeNull();
      },
    );
  });

  describe('secrets in logs', () => {
    it('never writes an issued token to the logs, whatever it was used for', async () => {
      const partner = await issuePartner();
      const operator = await issueToken({ role: 'admin' });
      await api().get('/api/v2/admin/companies').set('Authorization', bearer(partner.token)).expect(403);
      await api().get('/api/v2/admin/companies').set('Authorization', bearer(operator.token)).expect(200);
      await api()
        .delete(`/api/v2/admin/tokens/${partner.id}`)
        .set('Authorization', bearer(operator.token))
        .expect(200);
      await api().get('/api/v2/admin/companies').set('Authorization', bearer(partner.token)).expect(401);
      await api().get('/api/v2/admin/tokens').set('Authorization', `Token ${operator.token}`).expect(401);
      await sleep(200);
      const output = service.output();
      expect(output.length).toBeGreaterThan(0);
      for (const secret of [admin, partner.token, operator.token]) expect(output).not.toContain(secret);
      for (const secret of [partner.token, operator.token]) expect(output).not.toContain(secret.slice(12));
    });
  });

  describe('audit trail', () => {
    async function auditEvents(query: string, token: string = admin) {
      const response = await api()
        .get(`/api/v2/admin/audit-events?${query}`)
        .set('Authorization', bearer(token));
      expect(response.status).toBe(200);
      return response.body as { data: Record<string, unknown>[]; links: unknown; meta: unknown };
    }

    it('records who created a company, under the request id the admin sent, naming fields but not values', async () => {
      const requestId = unique('req-company');
      const name = unique('Audited Bistro');
      const response = await api()
        .post('/api/v2/admin/companies')
        .set('Authorization', bearer(admin))
        .set('X-Request-Id', requestId)
        .send({ name, site: 'cz' });
      expect(response.status).toBe(201);
      const events = await auditEvents(`company_id=${response.body.id}`);
      expect(events.data).toEqual([
        {
          id: expect.any(Number),
          occurred_at: expect.stringMatching(DATETIME),
          token_id: adminId,
          user_name: 'spec-admin',
          company_id: response.body.id,
          company_name: name,
          action: 'company.created',
          target_type: 'company',
          target_id: response.body.id,
          request_id: requestId,
          changed_fields: ['name', 'site'],
        },
      ]);
      // The name is the company's, read beside the row; the row itself stores field names, never values.
      const stored = await service.db.query('SELECT * FROM audit_events WHERE company_id = $1', [
        response.body.id,
      ]);
      expect(JSON.stringify(stored.rows)).not.toContain(name);
      expect(JSON.stringify(events)).not.toContain('"CZ"');
    });

    it('records issuing and revoking a token, newest first, filtered by the token that did it', async () => {
      const company = await createCompany();
      const operator = await issueToken({ role: 'admin', user_name: unique('operator') });
      const issueRequest = unique('req-issue');
      const revokeRequest = unique('req-revoke');
      const partner = await issueToken(
        { role: 'partner', company_id: company.id, user_name: unique('carol') },
        operator.token,
        issueRequest,
      );
      await api()
        .delete(`/api/v2/admin/tokens/${partner.id}`)
        .set('Authorization', bearer(operator.token))
        .set('X-Request-Id', revokeRequest)
        .expect(200);
      const events = await auditEvents(`token_id=${operator.id}`);
      const common = {
        id: expect.any(Number),
        occurred_at: expect.stringMatching(DATETIME),
        token_id: operator.id,
        user_name: operator.user_name,
        company_id: company.id,
        company_name: company.name,
        target_type: 'token',
        target_id: partner.id,
      };
      expect(events.data).toEqual([
        { ...common, action: 'token.revoked', request_id: revokeRequest, changed_fields: ['revoked_at'] },
        {
          ...common,
          action: 'token.issued',
          request_id: issueRequest,
          changed_fields: ['company_id', 'role', 'user_name'],
        },
      ]);
      expect((events.data[0].id as number) > (events.data[1].id as number)).toBe(true);
      expect(JSON.stringify(events)).not.toContain(partner.token);
      expect(JSON.stringify(events)).not.toContain(partner.user_name);
      const byCompany = await auditEvents(`company_id=${company.id}&token_id=${operator.id}`);
      expect(byCompany.data.map((event) => event.action)).toEqual(['token.revoked', 'token.issued']);
    });

    it('lists every event newest first', async () => {
      await createCompany();
      const events = await auditEvents('per_page=25');
      const ids = events.data.map((event) => event.id as number);
      expect(ids.length).toBeGreaterThan(1);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
    });

    it('records CLI changes with no token and a "cli:" user name', async () => {
      const name = unique('Cli Bistro');
      const result = await runCli(service.databaseUrl, ['companies:create', '--name', name, '--site', 'SK']);
      expect(result.code).toBe(0);
      const id = result.json!.id as number;
      const events = await auditEvents(`company_id=${id}`);
      expect(events.data).toEqual([
        {
          id: expect.any(Number),
          occurred_at: expect.stringMatching(DATETIME),
          token_id: null,
          user_name: expect.stringMatching(/^cli:/),
          company_id: id,
          company_name: name,
          action: 'company.created',
          target_type: 'company',
          target_id: id,
          request_id: null,
          changed_fields: ['name', 'site'],
        },
      ]);
    });

    it.each(['token_id=abc', 'company_id=1.5', 'page=0'])('refuses ?%s with 400', async (query) => {
      const response = await api()
        .get(`/api/v2/admin/audit-events?${query}`)
        .set('Authorization', bearer(admin));
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        message: 'Bad request.',
        errors: { [query.split('=')[0]]: expect.arrayContaining([expect.any(String)]) },
      });
    });
  });
});
