import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { runCli } from './harness/cli';

const FORBIDDEN = { message: 'Forbidden.' };
const NOT_FOUND = { message: 'Product not found.' };

let counter = 0;
const unique = (label: string): string => `${label}-${process.pid}-${(counter += 1)}`;

interface ProductView {
  id: number;
  name: string;
  active: boolean;
  variations: { id: number; name: string }[];
}

describe('products: the partner catalogue, the admin routes and products:import', () => {
  let service: TestApp;
  let admin: string;
  let partner: string;
  const dir = mkdtempSync(join(tmpdir(), 'products-import-'));

  const api = () => request(service.url);
  const bearer = (token: string) => `Bearer ${token}`;

  async function createProduct(name: string, variations: string[] = []): Promise<ProductView> {
    const response = await api()
      .post('/api/v2/admin/products')
      .set('Authorization', bearer(admin))
      .send({ name, variations: variations.map((variation) => ({ name: variation })) });
    expect(response.status).toBe(201);
    return response.body as ProductView;
  }

  /** Every active product as the partner catalogue must show it, by id. */
  async function activeCatalogue(): Promise<
    { id: number; name: string; variations: { id: number; name: string }[] }[]
  > {
    const products = await service.db.query<{ id: number; name: string }>(
      'SELECT id, name FROM products WHERE active ORDER BY id',
    );
    const variations = await service.db.query<{ id: number; name: string; product_id: number }>(
      'SELECT id, name, product_id FROM product_variations ORDER BY id',
    );
    return products.rows.map((product) => ({
      id: product.id,
      name: product.name,
      variations: variations.rows
        .filter((variation) => variation.product_id === product.id)
        .map(({ id, name }) => ({ id, name })),
    }));
  }

  async function catalogueNames(): Promise<string[]> {
    const response = await api().get('/api/v2/product?per_page=25').set('Authorization', bearer(partner));
    expect(response.status).toBe(200);
    const names: string[] = (response.body.data as ProductView[]).map((product) => product.name);
    let nextLink: string | null = response.body.links.next;
    while (nextLink) {
      const page = await request(nextLink).get('').set('Authorization', bearer(partner));
      expect(page.status).toBe(200);
      names.push(...(page.body.data as ProductView[]).map((product) => product.name));
      nextLink = page.body.links.next;
    }
    return names;
  }

  async function countProducts(): Promise<number> {
    const result = await service.db.query<{ n: string }>('SELECT count(*) AS n FROM products');
    return Number(result.rows[0].n);
  }

  function importFile(name: string, content: string): string {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  }

  beforeAll(async () => {
    service = await startApp({
      env: { RATE_LIMIT_PER_MINUTE: '100000', ADMIN_RATE_LIMIT_PER_MINUTE: '100000' },
    });
    admin = await issueAdminToken(service);
    const company = await api()
      .post('/api/v2/admin/companies')
      .set('Authorization', bearer(admin))
      .send({ name: unique('Bistro'), site: 'SK' });
    expect(company.status).toBe(201);
    const token = await api()
      .post('/api/v2/admin/tokens')
      .set('Authorization', bearer(admin))
      .send({ role: 'partner', user_name: unique('partner'), company_id: company.body.id });
    expect(token.status).toBe(201);
    partner = token.body.token as string;
  });

  afterAll(async () => {
    await service.stop();
  });

  describe('admin product routes', () => {
    it('creates a product with its variations: 201, active, stored', async () => {
      const name = unique('Terminal');
      const response = await api()
        .post('/api/v2/admin/products')
        .set('Authorization', bearer(admin))
        .send({ name, variations: [{ name: 'Black' }, { name: 'White' }] });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.any(Number),
        name,
        active: true,
        variations: [
          { id: expect.any(Number), name: 'Black' },
          { id: expect.any(Number), name: 'White' },
        ],
      });
      const stored = await service.db.query('SELECT name, active FROM products WHERE id = $1', [
        response.body.id,
      ]);
      expect(stored.rows).toEqual([{ name, active: true }]);
      const variations = await service.db.query(
        'SELECT id, name FROM product_variations WHERE product_id = $1 ORDER BY id',
        [response.body.id],
      );
      expect(variations.rows).toEqual(response.body.variations);
    });

    it.each([
      ['a missing name', {}],
      ['an empty name', { name: '' }],
      ['a blank name', { name: '   ' }],
    ])('refuses %s with 400 on name, storing nothing', async (_case, body) => {
      const before = await countProducts();
      const response = await api()
        .post('/api/v2/admin/products')
        .set('Authorization', bearer(admin))
        .send(body);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: { message: 'Bad request.', errors: { name: ['The name field is required.'] } },
      });
      expect(await countProducts()).toBe(before);
    });

    it('renames a product: 200, stored, and the catalogue shows the new name', async () => {
      const product = await createProduct(unique('Old name'));
      const name = unique('New name');
      const response = await api()
        .patch(`/api/v2/admin/products/${product.id}`)
        .set('Authorization', bearer(admin))
        .send({ name });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ...product, name });
      const stored = await service.db.query('SELECT name FROM products WHERE id = $1', [product.id]);
      expect(stored.rows[0].name).toBe(name);
      expect(await catalogueNames()).toContain(name);
    });

    it('refuses renaming to a blank name, changing nothing', async () => {
      const product = await createProduct(unique('Keep'));
      const response = await api()
        .patch(`/api/v2/admin/products/${product.id}`)
        .set('Authorization', bearer(admin))
        .send({ name: ' ' });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: { message: 'Bad request.', errors: { name: ['The name field is required.'] } },
      });
      const stored = await service.db.query('SELECT name FROM products WHERE id = $1', [product.id]);
      expect(stored.rows[0].name).toBe(product.name);
    });

    it('deactivates a product: 200, stored inactive, and it disappears from the catalogue', async () => {
      const product = await createProduct(unique('Retired'));
      expect(await catalogueNames()).toContain(product.name);
      const response = await api()
        .patch(`/api/v2/admin/products/${product.id}`)
        .set('Authorization', bearer(admin))
        .send({ active: false });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ...product, active: false });
      const stored = await service.db.query('SELECT active FROM products WHERE id = $1', [product.id]);
      expect(stored.rows[0].active).toBe(false);
      expect(await catalogueNames()).not.toContain(product.name);
    });

    it('adds a variation, which the catalogue then lists', async () => {
      const product = await createProduct(unique('Growing'), ['Small']);
      const response = await api()
        .post(`/api/v2/admin/products/${product.id}/variations`)
        .set('Authorization', bearer(admin))
        .send({ name: 'Large' });
      expect([200, 201]).toContain(response.status);
      const stored = await service.db.query(
        'SELECT id, name FROM product_variations WHERE product_id = $1 ORDER BY id',
        [product.id],
      );
      expect(stored.rows.map((row: { name: string }) => row.name)).toEqual(['Small', 'Large']);
      const catalogue = await api().get('/api/v2/product?per_page=25').set('Authorization', bearer(partner));
      const shown = (catalogue.body.data as ProductView[]).find((entry) => entry.id === product.id);
      expect(shown?.variations).toEqual(stored.rows);
    });

    it('refuses a variation with a blank name', async () => {
      const product = await createProduct(unique('Strict'));
      const response = await api()
        .post(`/api/v2/admin/products/${product.id}/variations`)
        .set('Authorization', bearer(admin))
        .send({ name: '' });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: { message: 'Bad request.', errors: { name: ['The name field is required.'] } },
      });
    });

    it.each(['987654', 'abc', '99999999999'])(
      'answers product id %s with 404 "Product not found."',
      async (id) => {
        await api()
          .patch(`/api/v2/admin/products/${id}`)
          .set('Authorization', bearer(admin))
          .send({ name: 'Ghost' })
          .expect(404, NOT_FOUND);
        await api()
          .post(`/api/v2/admin/products/${id}/variations`)
          .set('Authorization', bearer(admin))
          .send({ name: 'Ghost' })
          .expect(404, NOT_FOUND);
      },
    );

    it('answers a partner token with 403 on every admin product route, and changes nothing', async () => {
      const product = await createProduct(unique('Guarded'));
      const before = await countProducts();
      const calls = [
        api()
          .post('/api/v2/admin/products')
          .send({ name: unique('Sneaky'), variations: [] }),
        api().patch(`/api/v2/admin/products/${product.id}`).send({ active: false }),
        api().post(`/api/v2/admin/products/${product.id}/variations`).send({ name: 'Sneaky' }),
      ];
      for (const call of calls) {
        const response = await call.set('Authorization', bearer(partner));
        expect({ url: response.request.url, status: response.status, body: response.body }).toEqual({
          url: response.request.url,
          status: 403,
          body: FORBIDDEN,
        });
      }
      expect(await countProducts()).toBe(before);
      const stored = await service.db.query('SELECT active FROM products WHERE id = $1', [product.id]);
      expect(stored.rows[0].active).toBe(true);
      const variations = await service.db.query(
        'SELECT count(*) AS n FROM product_variations WHERE product_id = $1',
        [product.id],
      );
      expect(Number(variations.rows[0].n)).toBe(0);
    });
  });

  describe('the admin list GET /api/v2/admin/products', () => {
    const adminList = (query = '') =>
      api().get(`/api/v2/admin/products${query}`).set('Authorization', bearer(admin));

    it('lists every product by id, inactive ones too, each with active and its variations', async () => {
      const retired = await createProduct(unique('Listed-retired'), ['Red']);
      await api()
        .patch(`/api/v2/admin/products/${retired.id}`)
        .set('Authorization', bearer(admin))
        .send({ active: false })
        .expect(200);
      const stored = await service.db.query<{ id: number; active: boolean }>(
        'SELECT id, active FROM products ORDER BY id',
      );
      const listed: ProductView[] = [];
      for (let page = 1; ; page += 1) {
        const response = await adminList(`?page=${page}`);
        expect(response.status).toBe(200);
        listed.push(...(response.body.data as ProductView[]));
        if (response.body.links.next === null) break;
      }
      expect(listed.map(({ id, active }) => ({ id, active }))).toEqual(stored.rows);
      expect(listed.find((product) => product.id === retired.id)).toEqual({ ...retired, active: false });
    });

    it('pages with the simple-pagination envelope and absolute links', async () => {
      await createProduct(unique('Paged-a'));
      await createProduct(unique('Paged-b'));
      await createProduct(unique('Paged-c'));
      const first = await adminList('?per_page=2');
      expect(first.status).toBe(200);
      expect(first.body.data).toHaveLength(2);
      expect(first.body.links).toEqual({
        first: `${service.url}/api/v2/admin/products?per_page=2&page=1`,
        last: null,
        prev: null,
        next: `${service.url}/api/v2/admin/products?per_page=2&page=2`,
      });
      expect(first.body.meta).toEqual({
        current_page: 1,
        from: 1,
        path: `${service.url}/api/v2/admin/products`,
        per_page: 2,
        to: 2,
      });
      const second = await adminList('?per_page=2&page=2');
      expect(second.body.data[0].id).toBeGreaterThan(first.body.data[1].id);
    });

    it('refuses a page that is not a positive integer with 400 naming it', async () => {
      await adminList('?page=0').expect(400, {
        message: 'Bad request.',
        errors: { page: ['The page must be at least 1.'] },
      });
    });

    it('answers a partner token with 403 and no token with 401', async () => {
      await api().get('/api/v2/admin/products').set('Authorization', bearer(partner)).expect(403, FORBIDDEN);
      await api().get('/api/v2/admin/products').expect(401, { message: 'Unauthenticated.' });
    });
  });

  describe('the partner catalogue GET /api/v2/product', () => {
    beforeAll(async () => {
      for (let index = 0; index < 4; index += 1) await createProduct(unique('Catalogue'), [`V${index}`]);
      const inactive = await createProduct(unique('Hidden'));
      await api()
        .patch(`/api/v2/admin/products/${inactive.id}`)
        .set('Authorization', bearer(admin))
        .send({ active: false })
        .expect(200);
    });

    it('lists active products only, by id, with their variations', async () => {
      const expected = await activeCatalogue();
      expect(expected.length).toBeGreaterThan(3);
      expect(expected.length).toBeLessThanOrEqual(25);
      const response = await api().get('/api/v2/product').set('Authorization', bearer(partner));
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual(expected);
      const path = `${service.url}/api/v2/product`;
      expect(response.body.meta).toEqual({
        current_page: 1,
        from: 1,
        path,
        per_page: 25,
        to: expected.length,
      });
      expect(response.body.links.prev).toBeNull();
      expect(response.body.links.next).toBeNull();
      expect(response.body.links.last).toBeNull();
    });

    it('pages the catalogue with absolute links', async () => {
      const expected = await activeCatalogue();
      const response = await api()
        .get('/api/v2/product?page=2&per_page=2')
        .set('Authorization', bearer(partner));
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual(expected.slice(2, 4));
      const path = `${service.url}/api/v2/product`;
      expect(response.body.meta).toEqual({ current_page: 2, from: 3, path, per_page: 2, to: 4 });
      const query = (link: string) => Object.fromEntries(new URL(link).searchParams);
      expect((response.body.links.prev as string).startsWith(`${path}?`)).toBe(true);
      expect(query(response.body.links.prev)).toEqual({ page: '1', per_page: '2' });
      expect(query(response.body.links.first)).toEqual({ page: '1', per_page: '2' });
      if (expected.length > 4) expect(query(response.body.links.next)).toEqual({ page: '3', per_page: '2' });
      else expect(response.body.links.next).toBeNull();
    });

    it.each(['per_page=26', 'per_page=0', 'page=0', 'page=abc'])(
      'refuses ?%s with 400 naming it',
      async (query) => {
        const response = await api().get(`/api/v2/product?${query}`).set('Authorization', bearer(partner));
        expect({ status: response.status, body: response.body }).toEqual({
          status: 400,
          body: { message: 'Bad request.', errors: { [query.split('=')[0]]: [expect.any(String)] } },
        });
      },
    );

    it('answers an admin token with 403', async () => {
      await api().get('/api/v2/product').set('Authorization', bearer(admin)).expect(403, FORBIDDEN);
    });

    it('answers no token with 401', async () => {
      await api().get('/api/v2/product').expect(401, { message: 'Unauthenticated.' });
    });
  });

  describe('CLI products:import', () => {
    it('imports a JSON array of products with variations, prints one JSON object, and the catalogue lists them', async () => {
      const first = unique('Imported');
      const second = unique('Imported');
      const file = importFile(
        `${unique('good')}.json`,
        JSON.stringify([
          { name: first, variations: [{ name: 'Blue' }, { name: 'Green' }] },
          { name: second, variations: [] },
        ]),
      );
      const before = await countProducts();
      const result = await runCli(service.databaseUrl, ['products:import', file]);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      expect(result.json).toEqual({ imported: 2, products: expect.any(Array) });
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
      const products = result.json!.products as { name: string }[];
      expect(products.map((product) => product.name)).toEqual([first, second]);
      expect(await countProducts()).toBe(before + 2);
      expect(await catalogueNames()).toEqual(expect.arrayContaining([first, second]));
      const stored = await service.db.query(
        `SELECT v.name FROM product_variations v JOIN products p ON p.id = v.product_id WHERE p.name = $1 ORDER BY v.id`,
        [first],
      );
      expect(stored.rows.map((row: { name: string }) => row.name)).toEqual(['Blue', 'Green']);
    });

    it.each([
      ['a file that is not JSON', '[{"name": "Broken"'],
      ['JSON that is not an array', JSON.stringify({ name: 'Lonely' })],
      [
        'an entry without a name, after a valid one',
        JSON.stringify([{ name: 'VALID', variations: [] }, { variations: [] }]),
      ],
      [
        'an entry with a blank name',
        JSON.stringify([
          { name: 'VALID', variations: [] },
          { name: '  ', variations: [] },
        ]),
      ],
    ])(
      'refuses %s: non-zero exit, a message on stderr, empty stdout, nothing imported',
      async (_case, content) => {
        const valid = unique('AllOrNone');
        const file = importFile(`${unique('bad')}.json`, content.replace('VALID', valid));
        const before = await countProducts();
        const result = await runCli(service.databaseUrl, ['products:import', file]);
        expect(result.code).not.toBe(0);
        expect(result.stderr.trim().length).toBeGreaterThan(0);
        expect(result.stdout).toBe('');
        expect(await countProducts()).toBe(before);
        const stored = await service.db.query('SELECT count(*) AS n FROM products WHERE name = $1', [valid]);
        expect(Number(stored.rows[0].n)).toBe(0);
      },
    );

    it('refuses a file that does not exist, importing nothing', async () => {
      const before = await countProducts();
      const result = await runCli(service.databaseUrl, ['products:import', join(dir, 'missing.json')]);
      expect(result.code).not.toBe(0);
      expect(result.stderr.trim().length).toBeGreaterThan(0);
      expect(result.stdout).toBe('');
      expect(await countProducts()).toBe(before);
    });
  });
});
