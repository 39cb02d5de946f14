import request from 'supertest';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';
import { type Body, Fixtures, orderBody, type Partner } from './harness/factories';
import {
  FAST_DISPATCH,
  parseEvent,
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from './harness/webhook-receiver';

interface EndpointBody {
  id: number;
  company_id: number;
  url: string;
  active: boolean;
  enabled: boolean;
  disabled_at: string | null;
  event_types: string[] | null;
  previous_secret_expires_at: string | null;
  secret?: string;
}

interface DeliveryBody {
  id: number;
  event_id: string;
  event_type: string;
  status: string;
}

const NOT_FOUND = { message: 'Webhook not found.' };

/** The official Standard Webhooks verifier, as a receiver runs it on the raw body and the headers. */
function verifies(webhook: ReceivedWebhook, secret: string): boolean {
  try {
    new Webhook(secret).verify(webhook.body, webhook.headers as Record<string, string>);
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return false;
    throw error;
  }
}

/** A UTC datetime as the API reads it, `ms` from now (the service runs in UTC here). */
const inputDateTime = (ms: number): string => new Date(Date.now() + ms).toISOString().slice(0, 16);
const HOUR = 3_600_000;

describe('endpoint settings, secret rotation and partner endpoints (CONTRACT §5, §6)', () => {
  let service: TestApp;
  let receiver: WebhookReceiver;
  let admin: string;
  let fixtures: Fixtures;
  let productId: number;

  const api = () => request(service.url);
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const place = async (partner: Partner): Promise<number> => {
    const response = await api().post('/api/v2/order').set(as(partner.token)).send(orderBody(productId));
    expect(response.status).toBe(201);
    return Number(response.body.orders[0].order_id);
  };
  const comment = async (partner: Partner, orderId: number) =>
    api()
      .post(`/api/v2/order/${orderId}/comment`)
      .set(as(partner.token))
      .send({ partner_comment: 'Ring twice.' })
      .expect(200);
  /** A partner registers its own endpoint at `path` of the receiver. */
  async function register(partner: Partner, path: string, extra: Body = {}): Promise<EndpointBody> {
    const response = await api()
      .post('/api/v2/webhooks')
      .set(as(partner.token))
      .send({ url: `${receiver.url}${path}`, ...extra });
    expect(response.status).toBe(201);
    return response.body as EndpointBody;
  }
  const patch = (token: string, path: string, body: Body) => api().patch(path).set(as(token)).send(body);
  const deliveriesOf = async (partner: Partner, id: number): Promise<DeliveryBody[]> =>
    (await api().get(`/api/v2/webhooks/${id}/deliveries`).set(as(partner.token)).expect(200)).body
      .data as DeliveryBody[];
  /**
   * What reached `path`, one per webhook-id: a loaded machine can time an attempt out after the receiver got
   * it, and the retry brings it again (at least once, as receivers are told).
   */
  const at = (path: string) => [
    ...new Map(receiver.at(path).map((webhook) => [webhook.headers['webhook-id'], webhook])).values(),
  ];
  /** Waits until the endpoint's deliveries, newest first, have these statuses (an attempt is recorded after it is received). */
  async function statusesBecome(partner: Partner, id: number, statuses: string[]): Promise<void> {
    let seen: string[] = [];
    await eventually(
      async () => {
        seen = (await deliveriesOf(partner, id)).map((row) => row.status);
        return JSON.stringify(seen) === JSON.stringify(statuses);
      },
      () => `The deliveries are ${seen.join(', ')}, not ${statuses.join(', ')}`,
    );
  }
  const typesAt = (path: string) => at(path).map((webhook) => parseEvent(webhook).type);
  const ofOrder = (path: string, orderId: number) =>
    at(path).filter((webhook) => parseEvent(webhook).data.order_id === orderId);

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    service = await startApp({ env: FAST_DISPATCH });
    admin = await issueAdminToken(service);
    fixtures = new Fixtures(service.url, admin);
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await service.stop();
    await receiver.close();
  });

  describe('event types', () => {
    it('sends an endpoint only the event types it chose, and every type again once reset to null', async () => {
      const partner = await fixtures.partner();
      const chosen = await register(partner, '/types/chosen');
      await register(partner, '/types/all');
      expect(chosen.event_types).toBeNull();
      const changed = await patch(partner.token, `/api/v2/webhooks/${chosen.id}`, {
        event_types: ['order.comment'],
      }).expect(200);
      expect(changed.body).toMatchObject({ id: chosen.id, event_types: ['order.comment'], enabled: true });

      const orderId = await place(partner);
      await comment(partner, orderId);
      await receiver.waitFor(() => ofOrder('/types/all', orderId).length === 2);
      await receiver.waitFor(() => ofOrder('/types/chosen', orderId).length === 1);
      expect(typesAt('/types/all')).toEqual(['order.placed', 'order.comment']);
      expect(typesAt('/types/chosen')).toEqual(['order.comment']);
      expect((await deliveriesOf(partner, chosen.id)).map((row) => row.event_type)).toEqual([
        'order.comment',
      ]);

      await patch(admin, `/api/v2/admin/webhooks/${chosen.id}`, { event_types: null }).expect(200);
      const second = await place(partner);
      await receiver.waitFor(() => ofOrder('/types/chosen', second).length === 1);
      const audit = await service.db.query<{ action: string; changed_fields: string[]; user_name: string }>(
        `SELECT action, changed_fields, user_name FROM audit_events
         WHERE target_type = 'webhook' AND target_id = $1 ORDER BY id`,
        [String(chosen.id)],
      );
      expect(audit.rows.map((row) => [row.action, row.changed_fields])).toEqual([
        ['webhook.created', ['secret', 'url']],
        ['webhook.updated', ['event_types']],
        ['webhook.updated', ['event_types']],
      ]);
      expect(audit.rows[1].user_name).toBe(partner.userName);
    });

    it.each([
      [{ event_types: ['order.shipped'] }, 'Each event type must be one of the declared types.'],
      [{ event_types: [] }, 'The event types must name at least one type (null: all of them).'],
      [
        { event_types: 'order.placed' },
        'The event types must be a list of event types, or null for all of them.',
      ],
      [{ event_types: ['order.placed', 'order.placed'] }, 'The event types must not repeat a type.'],
    ])('refuses %j with a 400 naming the field', async (body, message) => {
      const partner = await fixtures.partner();
      const endpoint = await register(partner, '/types/refused');
      const response = await patch(partner.token, `/api/v2/webhooks/${endpoint.id}`, body);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: 'Bad request.', errors: { event_types: [message] } });
    });
  });

  describe('disable and enable', () => {
    it('sends a disabled endpoint nothing, keeps its deliveries paused, and sends them once enabled', async () => {
      const partner = await fixtures.partner();
      const paused = await register(partner, '/pause/off');
      await register(partner, '/pause/on');
      const disabled = await patch(partner.token, `/api/v2/webhooks/${paused.id}`, { enabled: 'false' });
      expect(disabled.status).toBe(200);
      expect(disabled.body).toMatchObject({ enabled: false, active: true });
      expect(disabled.body.disabled_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);

      const orderId = await place(partner);
      await receiver.waitFor(() => ofOrder('/pause/on', orderId).length === 1);
      // Long enough for several polls of the dispatcher (20 ms here).
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.at('/pause/off')).toEqual([]);
      const [waiting] = await deliveriesOf(partner, paused.id);
      expect(waiting).toMatchObject({ status: 'paused', event_type: 'order.placed' });
      const retried = await api()
        .post(`/api/v2/webhooks/${paused.id}/deliveries/${waiting.id}/retry`)
        .set(as(partner.token));
      expect(retried.status).toBe(409);
      expect(retried.body).toEqual({
        message: 'This endpoint is disabled: enable it, and its paused deliveries are sent at once.',
      });

      const enabled = await patch(partner.token, `/api/v2/webhooks/${paused.id}`, { enabled: true });
      expect(enabled.body).toMatchObject({ enabled: true, disabled_at: null });
      await receiver.waitFor(() => ofOrder('/pause/off', orderId).length === 1);
      await statusesBecome(partner, paused.id, ['succeeded']);
      const audit = await service.db.query<{ action: string }>(
        `SELECT action FROM audit_events WHERE target_type = 'webhook' AND target_id = $1 ORDER BY id`,
        [String(paused.id)],
      );
      expect(audit.rows.map((row) => row.action)).toEqual([
        'webhook.created',
        'webhook.disabled',
        'webhook.enabled',
      ]);
    });

    it('gives up, when enabled, a paused delivery older than the 24-hour retry window', async () => {
      const partner = await fixtures.partner();
      const endpoint = await register(partner, '/pause/old');
      await patch(admin, `/api/v2/admin/webhooks/${endpoint.id}`, { enabled: false }).expect(200);
      const old = await place(partner);
      const recent = await place(partner);
      const [, oldDelivery] = await deliveriesOf(partner, endpoint.id);
      expect(oldDelivery.status).toBe('paused');
      await service.db.query(
        `UPDATE webhook_deliveries SET created_at = now() - interval '25 hours' WHERE id = $1`,
        [oldDelivery.id],
      );

      await patch(admin, `/api/v2/admin/webhooks/${endpoint.id}`, { enabled: true }).expect(200);
      await receiver.waitFor(() => ofOrder('/pause/old', recent).length === 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(ofOrder('/pause/old', old)).toEqual([]);
      await statusesBecome(partner, endpoint.id, ['succeeded', 'failed']);
    });

    it('refuses an enabled that is not a boolean', async () => {
      const partner = await fixtures.partner();
      const endpoint = await register(partner, '/pause/bad');
      const response = await patch(partner.token, `/api/v2/webhooks/${endpoint.id}`, { enabled: 'maybe' });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        message: 'Bad request.',
        errors: { enabled: ['The enabled must be true or false.'] },
      });
    });
  });

  describe('secret rotation', () => {
    it('signs with both secrets during the overlap, then only with the new one (official verifier)', async () => {
      const partner = await fixtures.partner();
      const endpoint = await register(partner, '/rotate');
      const first = endpoint.secret!;
      const overlapEnd = inputDateTime(2 * HOUR);
      const rotated = await api()
        .post(`/api/v2/webhooks/${endpoint.id}/rotate-secret`)
        .set(as(partner.token))
        .send({ previous_secret_expires_at: overlapEnd });
      expect(rotated.status).toBe(200);
      const second = rotated.body.secret as string;
      expect(second).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(second).not.toBe(first);
      expect(rotated.body.previous_secret_expires_at).toBe(overlapEnd);
      const shown = await api().get(`/api/v2/webhooks/${endpoint.id}`).set(as(partner.token)).expect(200);
      expect(JSON.stringify(shown.body)).not.toContain(second.slice(6));
      expect(shown.body.previous_secret_expires_at).toBe(rotated.body.previous_secret_expires_at);
      const stored = await service.db.query<Record<string, string>>(
        'SELECT secret, previous_secret FROM webhook_endpoints WHERE id = $1',
        [endpoint.id],
      );
      for (const sealed of Object.values(stored.rows[0])) {
        expect(sealed).toMatch(/^v1:/);
        expect(sealed).not.toContain(first.slice(6));
        expect(sealed).not.toContain(second.slice(6));
      }

      const during = await place(partner);
      await receiver.waitFor(() => ofOrder('/rotate', during).length === 1);
      const [overlapping] = ofOrder('/rotate', during);
      expect(String(overlapping.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verifies(overlapping, first)).toBe(true);
      expect(verifies(overlapping, second)).toBe(true);

      // The overlap ends (as two hours passing would end it).
      await service.db.query(
        `UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`,
        [endpoint.id],
      );
      const after = await place(partner);
      await receiver.waitFor(() => ofOrder('/rotate', after).length === 1);
      const [later] = ofOrder('/rotate', after);
      expect(String(later.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(verifies(later, second)).toBe(true);
      expect(verifies(later, first)).toBe(false);
      const listed = await api().get(`/api/v2/webhooks/${endpoint.id}`).set(as(partner.token)).expect(200);
      expect(listed.body.previous_secret_expires_at).toBeNull();
      const audit = await service.db.query(
        `SELECT action, changed_fields FROM audit_events WHERE target_type = 'webhook' AND target_id = $1 ORDER BY id`,
        [String(endpoint.id)],
      );
      expect(audit.rows.at(-1)).toEqual({
        action: 'webhook.secret_rotated',
        changed_fields: ['previous_secret_expires_at', 'secret'],
      });
    });

    it('keeps a given secret, ends the previous one at once when asked, and bounds the overlap to 7 days', async () => {
      const partner = await fixtures.partner();
      const endpoint = await register(partner, '/rotate/now');
      const given = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      const rotated = await api()
        .post(`/api/v2/admin/webhooks/${endpoint.id}/rotate-secret`)
        .set(as(admin))
        .send({ secret: given, previous_secret_expires_at: inputDateTime(0) });
      expect(rotated.status).toBe(200);
      expect(rotated.body).toMatchObject({ secret: given, previous_secret_expires_at: null });
      const orderId = await place(partner);
      await receiver.waitFor(() => ofOrder('/rotate/now', orderId).length === 1);
      const [webhook] = ofOrder('/rotate/now', orderId);
      expect(verifies(webhook, given)).toBe(true);
      expect(verifies(webhook, endpoint.secret!)).toBe(false);

      const before = inputDateTime(24 * HOUR);
      const defaulted = await api()
        .post(`/api/v2/admin/webhooks/${endpoint.id}/rotate-secret`)
        .set(as(admin))
        .send({});
      expect(defaulted.status).toBe(200);
      expect([before, inputDateTime(24 * HOUR)]).toContain(defaulted.body.previous_secret_expires_at);

      for (const [body, field, message] of [
        [
          { previous_secret_expires_at: inputDateTime(8 * 24 * HOUR) },
          'previous_secret_expires_at',
          'The previous secret can sign for at most 7 days.',
        ],
        [
          { previous_secret_expires_at: '2026-02-30' },
          'previous_secret_expires_at',
          'The previous secret expires at must be a date (YYYY-MM-DD) or datetime (YYYY-MM-DDTHH:MM[:SS]) that exists.',
        ],
        [{ secret: 'whsec_short' }, 'secret', 'The secret must be whsec_ and the base64 of 24 to 64 bytes.'],
      ] as const) {
        const refused = await api()
          .post(`/api/v2/webhooks/${endpoint.id}/rotate-secret`)
          .set(as(partner.token))
          .send(body);
        expect(refused.status).toBe(400);
        expect(refused.body).toEqual({ message: 'Bad request.', errors: { [field]: [message] } });
      }
    });
  });

  describe('partner endpoints', () => {
    it("lists, registers and deletes the token's company's endpoints only, whatever company the body names", async () => {
      const partner = await fixtures.partner();
      const other = await fixtures.partner();
      const own = await register(partner, '/own', { company_id: other.companyId });
      expect(own).toMatchObject({ company_id: partner.companyId, enabled: true, event_types: null });
      expect(own.secret).toMatch(/^whsec_/);
      await register(other, '/theirs');
      const listed = await api().get('/api/v2/webhooks').set(as(partner.token)).expect(200);
      expect((listed.body.data as EndpointBody[]).map((row) => row.id)).toEqual([own.id]);
      expect(JSON.stringify(listed.body)).not.toContain(own.secret!);
      const deleted = await api().delete(`/api/v2/webhooks/${own.id}`).set(as(partner.token)).expect(200);
      expect(deleted.body).toMatchObject({ id: own.id, active: false });
      expect((await api().get('/api/v2/webhooks').set(as(partner.token)).expect(200)).body.data).toEqual([]);
    });

    it("answers another company's endpoint exactly as a missing one, on every route", async () => {
      const owner = await fixtures.partner();
      const stranger = await fixtures.partner();
      const endpoint = await register(owner, '/isolated');
      const orderId = await place(owner);
      await receiver.waitFor(() => ofOrder('/isolated', orderId).length === 1);
      const [delivery] = await deliveriesOf(owner, endpoint.id);
      const routes = (id: number) =>
        [
          ['get', `/api/v2/webhooks/${id}`, undefined],
          ['patch', `/api/v2/webhooks/${id}`, { enabled: false }],
          ['post', `/api/v2/webhooks/${id}/rotate-secret`, {}],
          ['delete', `/api/v2/webhooks/${id}`, undefined],
          ['get', `/api/v2/webhooks/${id}/deliveries`, undefined],
          ['post', `/api/v2/webhooks/${id}/deliveries/${delivery.id}/retry`, undefined],
        ] as const;
      for (const id of [endpoint.id, 2_000_000_000]) {
        for (const [method, path, body] of routes(id)) {
          const response = await api()[method](path).set(as(stranger.token)).send(body);
          expect([method, path, response.status, response.body]).toEqual([method, path, 404, NOT_FOUND]);
        }
      }
      const unchanged = await api().get(`/api/v2/webhooks/${endpoint.id}`).set(as(owner.token)).expect(200);
      expect(unchanged.body).toMatchObject({ active: true, enabled: true, previous_secret_expires_at: null });
    });

    it('keeps the partner routes to partner tokens', async () => {
      const logistics = await fixtures.logisticsToken();
      await api().get('/api/v2/webhooks').set(as(logistics)).expect(403, { message: 'Forbidden.' });
      await api().get('/api/v2/webhooks').set(as(admin)).expect(403, { message: 'Forbidden.' });
      await api().get('/api/v2/webhooks').expect(401, { message: 'Unauthenticated.' });
    });
  });

  describe('partner URL rules, without WEBHOOK_ALLOW_PRIVATE', () => {
    let strict: TestApp;

    beforeAll(async () => {
      strict = await startApp({
        env: { DATABASE_URL: service.databaseUrl, WEBHOOK_DISPATCHER: 'false' },
      });
    });

    afterAll(async () => {
      await strict.stop();
    });

    const PRIVATE_REFUSED =
      'The url must not point to a loopback, private or link-local address (for local testing, start the service with WEBHOOK_ALLOW_PRIVATE=true).';

    it.each([
      ['http://127.0.0.1:8080/hook', PRIVATE_REFUSED],
      ['http://10.0.0.5/hook', PRIVATE_REFUSED],
      ['http://[::ffff:192.168.1.10]/hook', PRIVATE_REFUSED],
      ['http://169.254.169.254/latest/meta-data', PRIVATE_REFUSED],
      ['ftp://hooks.example.com/', 'The url must use http or https.'],
      ['https://user:pw@hooks.example.com/', 'The url may not carry a user name or password.'],
    ])('refuses %s for a partner as for an admin', async (url, message) => {
      const partner = await fixtures.partner();
      const response = await request(strict.url)
        .post('/api/v2/webhooks')
        .set(as(partner.token))
        .send({ url });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: 'Bad request.', errors: { url: [message] } });
      const listed = await request(strict.url).get('/api/v2/webhooks').set(as(partner.token)).expect(200);
      expect(listed.body.data).toEqual([]);
    });
  });
});
