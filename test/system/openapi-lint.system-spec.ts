import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startService, type RunningService } from '../harness/service';

/**
 * The lint waivers (.spectral.yaml, redocly.yaml) are scoped to the paths they concern: an operation added to
 * the served document without a 401, or with a request string of no bound, fails `npm run lint:openapi`
 * (scripts/lint-openapi.mjs, here on an altered copy of the document).
 */
describe('the OpenAPI lint', () => {
  let service: RunningService;
  let dir: string;

  beforeAll(async () => {
    service = await startService();
    dir = mkdtempSync(join(tmpdir(), 'roa-openapi-lint-'));
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await service.stop();
  });

  it('fails an operation added without a 401 or with an unbounded request string', async () => {
    const document = (await request(service.url).get('/api/docs-json').expect(200)).body as {
      paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown> }>>;
    };
    // Copies of documented operations, so each differs from its model only by what is changed.
    const responses = { ...document.paths['/api/v2/admin/companies'].get.responses };
    delete responses['401'];
    const create = structuredClone(document.paths['/api/v2/admin/companies'].post);
    Object.assign(create, {
      operationId: 'createRestaurant',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { name: { type: 'string', pattern: '\\S', description: 'Unbounded.' } },
            },
          },
        },
      },
    });
    document.paths['/api/v2/admin/restaurants'] = {
      get: { ...document.paths['/api/v2/admin/companies'].get, operationId: 'listRestaurants', responses },
      post: create,
    };
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));

    const lint = spawnSync(process.execPath, ['scripts/lint-openapi.mjs', file], {
      cwd: join(__dirname, '..', '..'),
      encoding: 'utf8',
      timeout: 120_000,
    });
    const output = lint.stdout + lint.stderr;
    expect(lint.status).toBe(1);
    // Every problem is one of the new operation's, so the rest of the document passes as `npm run lint:openapi`
    // shows: Redocly's, then each of Spectral's (`line:column  severity  rule  message  path`), wherever it is.
    // CI lints the document here only (no `npm run lint:openapi` step of its own).
    expect(output).toMatch(
      /at #\/paths\/~1api~1v2~1admin~1restaurants\/get\/responses\s+Every operation but the health routes needs a token/,
    );
    expect(output).toContain('Validation failed with 1 error.');
    const spectral = [...output.matchAll(/^\s*\d+:\d+\s+(?:error|warning)\s+(\S+)\s.*\s(\S+)$/gm)];
    expect(spectral.map(([, rule, path]) => `${rule} ${path}`)).toEqual([
      'owasp:api8:2023-define-error-responses-401 paths./api/v2/admin/restaurants.get.responses',
      'owasp:api8:2023-define-error-responses-401 paths./api/v2/admin/restaurants.get.responses',
      'request-string-limit paths./api/v2/admin/restaurants.post.requestBody.content.application/json.schema.properties.name',
    ]);
  });
});
