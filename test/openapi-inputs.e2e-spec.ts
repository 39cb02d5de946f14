import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { Fixtures, orderBody, unique } from './harness/factories';
import { contractFor } from './harness/openapi-contract-hook';
import type { OpenApiContract } from './harness/openapi-contract';

/**
 * CONTRACT §8: the document is no stricter and no looser than the service. For each input whose rule a schema
 * can state, a value the served document refuses is refused by the service (400), and a value it accepts is
 * accepted (the contract hook checks every accepted request against the document as well).
 */

type Schema = Record<string, unknown>;
type Document = {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; responses: Schema }>>;
  components: { schemas: Record<string, Schema> };
};

const secretOf = (bytes: number) => 'whsec_' + Buffer.alloc(bytes, 0xa5).toString('base64');

describe('the OpenAPI document refuses what the service refuses, and accepts what it accepts', () => {
  let service: TestApp;
  let contract: OpenApiContract;
  let document: Document;
  let adminToken: string;
  let partnerToken: string;
  let logisticsToken: string;
  let companyId: number;
  /** Sent to logistics (tracking links); the other stays editable by the partner. */
  let orderId: number;
  let editableOrderId: number;

  beforeAll(async () => {
    service = await startApp({
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_DISPATCHER: 'false', RATE_LIMIT_PER_MINUTE: '100000' },
    });
    adminToken = await issueAdminToken(service);
    const fixtures = new Fixtures(service.url, adminToken);
    const partner = await fixtures.partner();
    partnerToken = partner.token;
    companyId = partner.companyId;
    logisticsToken = await fixtures.logisticsToken();
    const product = await fixtures.product();
    const place = async () =>
      (
        await request(service.url)
          .post('/api/v2/order')
          .set('Authorization', `Bearer ${partnerToken}`)
          .send(orderBody(product.id))
          .expect(201)
      ).body.orders[0].order_id as number;
    orderId = await place();
    editableOrderId = await place();
    contract = await contractFor(service.url);
    document = (await request(service.url).get('/api/docs-json').expect(200)).body as Document;
  });

  afterAll(async () => {
    await service.stop();
  });

  /** Sends the call and checks the document's verdict on the same request against the service's. */
  async function agree(
    call: {
      method: 'post' | 'put';
      url: string;
      token: string;
      headers?: Record<string, string>;
      body: object;
    },
    accepted: boolean,
  ): Promise<void> {
    const headers = { 'content-type': 'application/json', ...call.headers };
    const mismatch = contract.checkRequest({ method: call.method, url: call.url, headers, body: call.body });
    let sent = request(service.url)[call.method](call.url).set('Authorization', `Bearer ${call.token}`);
    for (const [name, value] of Object.entries(call.headers ?? {})) sent = sent.set(name, value);
    const response = await sent.send(call.body);
    expect({ documentAccepts: mismatch === undefined, status: response.status }).toEqual({
      documentAccepts: accepted,
      status: accepted ? expect.any(Number) : 400,
    });
    if (accepted) expect(response.status).toBeLessThan(300);
  }

  describe('tracking_link: http(s), at most 2,048 characters', () => {
    beforeAll(async () => {
      await request(service.url)
        .post(`/api/v2/logistics/orders/${orderId}/sent`)
        .set('Authorization', `Bearer ${logisticsToken}`)
        .expect(200);
    });

    const long = (length: number) => `https://track.example.com/${'x'.repeat(length - 26)}`;
    it.each([
      ['https://track.example.com/PKG1', true, 'https://track.example.com/PKG1'],
      ['an upper-case scheme and a query', true, 'HTTP://track.example.com/PKG1?lang=sk'],
      ['2,048 characters', true, long(2_048)],
      ['2,049 characters', false, long(2_049)],
      ['ftp://track.example.com/PKG1', false, 'ftp://track.example.com/PKG1'],
      ['no scheme', false, 'track.example.com/PKG1'],
      ['a space', false, 'https://track.example.com/PKG 1'],
    ])('%s: accepted %p', async (_label, accepted, link) => {
      await agree(
        {
          method: 'post',
          url: `/api/v2/logistics/orders/${orderId}/detailed-statuses`,
          token: logisticsToken,
          body: { status: 'In transit', status_date: '2026-11-22T09:15', tracking_link: link },
        },
        accepted,
      );
    });
  });

  describe('webhook url (http or https) and secret (whsec_ and the base64 of 24 to 64 bytes)', () => {
    const register = (body: object, accepted: boolean) =>
      agree(
        {
          method: 'post',
          url: '/api/v2/admin/webhooks',
          token: adminToken,
          body: { company_id: companyId, ...body },
        },
        accepted,
      );

    it.each([
      ['http://127.0.0.1:9/hooks', true],
      ['HTTPS://127.0.0.1:9/hooks', true],
      ['ftp://127.0.0.1:9/hooks', false],
      ['/hooks', false],
      ['mailto:ops@example.com', false],
    ])('url %s: accepted %p', async (url, accepted) => {
      await register({ url }, accepted);
    });

    it.each([
      [secretOf(24), true],
      [secretOf(32), true],
      [secretOf(64), true],
      [secretOf(23), false],
      [secretOf(65), false],
      [secretOf(32).slice(0, -1), false],
      [Buffer.alloc(32).toString('base64'), false],
      ['whsec_not base64 at all, not at all!!', false],
    ])('secret %s: accepted %p', async (secret, accepted) => {
      await register({ url: 'http://127.0.0.1:9/hooks', secret }, accepted);
    });
  });

  describe('If-Match: an ETag of the order, or *', () => {
    const etag = async (): Promise<string> =>
      (
        await request(service.url)
          .get(`/api/v2/order/${editableOrderId}`)
          .set('Authorization', `Bearer ${partnerToken}`)
          .expect(200)
      ).headers.etag;

    it.each([
      ['the current ETag', true, () => etag()],
      ['the current weak ETag', true, async () => `W/${await etag()}`],
      ['*', true, () => Promise.resolve('*')],
      ['the version unquoted', false, async () => (await etag()).replace(/"/g, '')],
      ['"abc"', false, () => Promise.resolve('"abc"')],
      ['two ETags', false, () => Promise.resolve('"1", "2"')],
    ])('%s: accepted %p', async (_label, accepted, value) => {
      await agree(
        {
          method: 'post',
          url: `/api/v2/order/${editableOrderId}/update`,
          token: partnerToken,
          headers: { 'If-Match': await value() },
          body: { city: unique('Košice') },
        },
        accepted,
      );
    });
  });

  describe('Idempotency-Key: 1 to 255 visible ASCII characters', () => {
    it.each([
      ['a UUID', true, '4f1c2a0e-8c1b-4d7e-9a55-0b7f1d2e3c4a'],
      ['!', true, '!'],
      ['255 characters', true, 'k'.repeat(255)],
      ['256 characters', false, 'k'.repeat(256)],
      ['a space', false, 'two words'],
      ['a letter outside ASCII', false, 'caf\u00e9'],
    ])('%s: accepted %p', async (_label, accepted, key) => {
      await agree(
        {
          method: 'post',
          url: `/api/v2/order/${editableOrderId}/comment`,
          token: partnerToken,
          headers: { 'Idempotency-Key': key },
          body: { partner_comment: unique('Ring twice') },
        },
        accepted,
      );
    });
  });

  it('declares X-Request-Id on every request and response, and Idempotent-Replayed where a repeat replays', () => {
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const names = (operation.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
        expect([method, path, names]).toEqual([method, path, expect.arrayContaining(['X-Request-Id'])]);
        for (const [status, response] of Object.entries(operation.responses)) {
          const headers = Object.keys((response as { headers?: Schema }).headers ?? {});
          expect([method, path, status, headers]).toEqual([
            method,
            path,
            status,
            expect.arrayContaining(['X-Request-Id']),
          ]);
          if (names.includes('Idempotency-Key') && /^2/.test(status))
            expect([method, path, status, headers]).toEqual([
              method,
              path,
              status,
              expect.arrayContaining(['Idempotent-Replayed']),
            ]);
        }
      }
    }
  });

  it('names the event union OrderEvent, the items of the feed', () => {
    const union = document.components.schemas.OrderEvent as { oneOf: unknown[]; discriminator: Schema };
    // The seven order events and the two of a bulk import (the union keeps its first name).
    expect(union.oneOf).toHaveLength(9);
    expect(union.oneOf).toContainEqual({ $ref: '#/components/schemas/ImportCompletedEvent' });
    expect(union.discriminator.propertyName).toBe('type');
    expect(document.components.schemas.EventListResponse).toMatchObject({
      properties: { data: { items: { $ref: '#/components/schemas/OrderEvent' } } },
    });
  });
});
