import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { runCli, runCliThroughNpm } from '../harness/cli';
import { startService, type RunningService } from '../harness/service';
import { createTestDatabase } from '../harness/test-database';

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;
const TOKEN_SHAPE = /^roa_[A-Za-z0-9_-]{43}$/;

let counter = 0;
const unique = (label: string): string => `${label}-${process.pid}-${(counter += 1)}`;
const bearer = (token: string) => `Bearer ${token}`;

describe('the CLI', () => {
  let databaseUrl: string;
  let service: RunningService;

  async function count(table: 'companies' | 'api_tokens'): Promise<number> {
    const result = await service.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
    return Number(result.rows[0].n);
  }

  async function createCompany(): Promise<number> {
    const result = await runCli(databaseUrl, [
      'companies:create',
      '--name',
      unique('Cli Bistro'),
      '--site',
      'SK',
    ]);
    expect(result.code).toBe(0);
    return result.json!.id as number;
  }

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    service = await startService({ env: { DATABASE_URL: databaseUrl } });
  });

  afterAll(async () => {
    await service.stop();
  });

  it('creates a company and prints exactly one JSON object', async () => {
    const name = unique('Kebab House');
    const result = await runCli(databaseUrl, ['companies:create', '--name', name, '--site', 'sk']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.json).toEqual({
      id: expect.any(Number),
      name,
      site: 'SK',
      created_at: expect.stringMatching(DATETIME),
    });
    const stored = await service.db.query('SELECT name, site FROM companies WHERE id = $1', [
      result.json!.id,
    ]);
    expect(stored.rows).toEqual([{ name, site: 'SK' }]);
  });

  it.each([['npm run -s cli --', ['run', '-s', 'cli', '--']]])(
    'prints only the JSON object on stdout when run as `%s ...` (the form the documents show), so it pipes into a JSON parser',
    async (_form, npm) => {
      const name = unique('Piped Bistro');
      const result = await runCliThroughNpm(databaseUrl, [
        ...npm,
        'companies:create',
        '--name',
        name,
        '--site',
        'SK',
      ]);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ name, site: 'SK' });
    },
  );

  it('issues a partner token that the service accepts, and never prints it on stderr', async () => {
    const companyId = await createCompany();
    const userName = unique('alice');
    const result = await runCli(databaseUrl, [
      'tokens:create',
      '--role',
      'partner',
      '--company-id',
      String(companyId),
      '--user-name',
      userName,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const token = result.json!.token as string;
    expect(token).toMatch(TOKEN_SHAPE);
    expect(result.json).toEqual({
      id: expect.any(Number),
      prefix: token.slice(0, 12),
      role: 'partner',
      user_name: userName,
      company_id: companyId,
      created_at: expect.stringMatching(DATETIME),
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
      read_only: false,
      rolled_at: null,
      previous_expires_at: null,
      token,
    });
    expect(result.stderr).not.toContain(token);
    await request(service.url)
      .get('/api/v2/admin/companies')
      .set('Authorization', bearer(token))
      .expect(403, { message: 'Forbidden.' });
    const stored = await service.db.query('SELECT * FROM api_tokens WHERE id = $1', [result.json!.id]);
    expect(JSON.stringify(stored.rows)).not.toContain(token);
  });

  it('issues an admin token that the admin API accepts', async () => {
    const result = await runCli(databaseUrl, [
      'tokens:create',
      '--role',
      'admin',
      '--user-name',
      unique('root'),
    ]);
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ role: 'admin', company_id: null });
    const token = result.json!.token as string;
    expect(result.stderr).not.toContain(token);
    const response = await request(service.url)
      .get('/api/v2/admin/tokens')
      .set('Authorization', bearer(token));
    expect(response.status).toBe(200);
    expect((response.body.data as { id: number }[]).map((row) => row.id)).toContain(result.json!.id);
  });

  it('revokes a token: exit 0, revoked in the database, and the service refuses it', async () => {
    const issued = await runCli(databaseUrl, [
      'tokens:create',
      '--role',
      'admin',
      '--user-name',
      unique('leaver'),
    ]);
    expect(issued.code).toBe(0);
    const id = issued.json!.id as number;
    const result = await runCli(databaseUrl, ['tokens:revoke', '--id', String(id)]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain(issued.json!.token as string);
    const stored = await service.db.query('SELECT revoked_at FROM api_tokens WHERE id = $1', [id]);
    expect(stored.rows[0].revoked_at).toBeInstanceOf(Date);
    await request(service.url)
      .get('/api/v2/admin/companies')
      .set('Authorization', bearer(issued.json!.token as string))
      .expect(401, { message: 'Unauthenticated.' });
  });

  it('refuses a token revoked with the CLI from its next request on, even one the service just accepted', async () => {
    const companyId = await createCompany();
    const issued = await runCli(databaseUrl, [
      'tokens:create',
      '--role',
      'partner',
      '--company-id',
      String(companyId),
      '--user-name',
      unique('busy'),
    ]);
    expect(issued.code).toBe(0);
    const token = issued.json!.token as string;
    await request(service.url).get('/api/v2/admin/companies').set('Authorization', bearer(token)).expect(403);
    const result = await runCli(databaseUrl, ['tokens:revoke', '--id', String(issued.json!.id)]);
    expect(result.code).toBe(0);
    await request(service.url)
      .get('/api/v2/admin/companies')
      .set('Authorization', bearer(token))
      .expect(401, { message: 'Unauthenticated.' });
  });

  it.each([
    ['an unknown role', ['tokens:create', '--role', 'owner', '--user-name', 'x'], /role/i],
    [
      'a partner token without --company-id',
      ['tokens:create', '--role', 'partner', '--user-name', 'x'],
      /company/i,
    ],
    [
      'a partner token of an unknown company',
      ['tokens:create', '--role', 'partner', '--company-id', '987654', '--user-name', 'x'],
      /company/i,
    ],
    ['tokens:create without --user-name', ['tokens:create', '--role', 'admin'], /user-name/],
    ['tokens:create without --role', ['tokens:create', '--user-name', 'x'], /role/],
    ['companies:create without --site', ['companies:create', '--name', 'No Site'], /site/],
    ['companies:create with a bad site', ['companies:create', '--name', 'Bad Site', '--site', 'S1'], /site/i],
    [
      'an expiry in the past',
      ['tokens:create', '--role', 'admin', '--user-name', 'x', '--expires-at', '2020-01-01T00:00'],
      /expires/i,
    ],
  ])(
    'refuses %s: non-zero exit, nothing on stdout, the reason on stderr, nothing stored',
    async (_case, args, reason) => {
      const before = { companies: await count('companies'), tokens: await count('api_tokens') };
      const result = await runCli(databaseUrl, args);
      expect(result.code).not.toBe(0);
      expect(result.code).not.toBeNull();
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(reason);
      expect({ companies: await count('companies'), tokens: await count('api_tokens') }).toEqual(before);
    },
  );

  it.each([
    ['abc', /./],
    ['9999', /Token not found\./],
  ])('refuses tokens:revoke --id %s: non-zero exit, nothing on stdout', async (id, reason) => {
    const result = await runCli(databaseUrl, ['tokens:revoke', '--id', id]);
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toMatch(reason);
  });

  it('refuses tokens:revoke without --id', async () => {
    const result = await runCli(databaseUrl, ['tokens:revoke']);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/--id/);
  });

  it('creates a company whose name is taken (as the admin API does) and says so on stderr', async () => {
    const name = unique('Twin Grill');
    const first = await runCli(databaseUrl, ['companies:create', '--name', name, '--site', 'SK']);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    const second = await runCli(databaseUrl, [
      'companies:create',
      '--name',
      name.toUpperCase(),
      '--site',
      'CZ',
    ]);
    expect(second.code).toBe(0);
    expect(second.json).toMatchObject({ name: name.toUpperCase(), site: 'CZ' });
    expect(second.stderr).toBe(
      `Warning: a company named "${name.toUpperCase()}" already exists (id ${first.json!.id as number}); created another one, id ${second.json!.id as number}.\n`,
    );
    const stored = await service.db.query('SELECT id FROM companies WHERE lower(name) = lower($1)', [name]);
    expect(stored.rowCount).toBe(2);
  });

  it('imports products whose names are taken (as the admin API does) and names them on stderr', async () => {
    const name = unique('Twin Terminal');
    const file = join(mkdtempSync(join(tmpdir(), 'cli-import-')), 'products.json');
    writeFileSync(
      file,
      JSON.stringify([{ name, variations: [{ name: 'Black' }] }, { name: unique('Fresh') }]),
    );
    const first = await runCli(databaseUrl, ['products:import', file]);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    const firstId = (first.json!.products as { id: number }[])[0].id;
    writeFileSync(file, JSON.stringify([{ name }]));
    const second = await runCli(databaseUrl, ['products:import', file]);
    expect(second.code).toBe(0);
    expect(second.json).toMatchObject({ imported: 1 });
    expect(second.stderr).toBe(
      `Warning: products with these names already exist, and were created again: "${name}" (id ${firstId}).\n`,
    );
  });

  it('numbers the products of an import file from 1 in its errors', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cli-import-')), 'products.json');
    writeFileSync(file, JSON.stringify([{ name: unique('Fine') }, { name: '' }]));
    const result = await runCli(databaseUrl, ['products:import', file]);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`${file}: product 2: --name:`);
  });

  it.each([
    [
      'an admin token with a company',
      ['tokens:create', '--role', 'admin', '--user-name', 'x', '--company-id', '1'],
      '--company-id: An admin token belongs to no company: leave company_id out.\n',
    ],
    [
      'an expiry in the past',
      ['tokens:create', '--role', 'admin', '--user-name', 'x', '--expires-at', '2020-01-01T00:00'],
      '--expires-at: The expiry must be in the future.\n',
    ],
  ])('explains %s in plain words', async (_case, args, message) => {
    const result = await runCli(databaseUrl, args);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toBe(message);
  });

  it('shows its usage as the documents run it', async () => {
    const overview = await runCli(databaseUrl, ['--help']);
    expect(overview.stdout).toMatch(/^Usage: npm run -s cli -- \[options\] \[command\]\n/);
    const command = await runCli(databaseUrl, ['tokens:create', '--help']);
    expect(command.stdout).toMatch(/^Usage: npm run -s cli -- tokens:create \[options\]\n/);
  });

  it('refuses a bad environment before doing anything', async () => {
    const before = await count('companies');
    const result = await runCli(
      databaseUrl,
      ['companies:create', '--name', unique('Nowhere'), '--site', 'SK'],
      {
        APP_TIMEZONE: 'Nowhere',
      },
    );
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Invalid environment variable APP_TIMEZONE');
    expect(await count('companies')).toBe(before);
  });
});
