import request from 'supertest';
import { issueAdminToken } from './harness/cli';
import { eventually } from './harness/eventually';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import { type RunningService, startService } from './harness/service';
import {
  FAST_DISPATCH,
  hasValidSignature,
  startWebhookReceiver,
  type WebhookReceiver,
} from './harness/webhook-receiver';

interface Delivery {
  id: string;
  event_id: string;
  status: string;
  attempt_count: number;
  attempts: { status_code: number | null; error: string | null; duration_ms: number }[];
}

describe('retrying a webhook delivery by hand (CONTRACT §6)', () => {
  let service: RunningService;
  let receiver: WebhookReceiver;
  let admin: string;
  let fixtures: Fixtures;
  let productId: number;
  /** Paths the receiver answers 500 to; every other path gets 200. */
  const failing = new Set<string>();

  const api = () => request(service.url);
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const retry = (endpointId: number, deliveryId: string, token = admin) =>
    api().post(`/api/v2/admin/webhooks/${endpointId}/deliveries/${deliveryId}/retry`).set(as(token));

  async function register(companyId: number, path: string) {
    const response = await api()
      .post('/api/v2/admin/webhooks')
      .set(as(admin))
      .send({ company_id: companyId, url: `${receiver.url}${path}` });
    expect(response.status).toBe(201);
    return response.body as { id: number; secret: string };
  }

  async function place(partner: Partner): Promise<void> {
    await api().post('/api/v2/order').set(as(partner.token)).send(orderBody(productId)).expect(201);
  }

  /** The endpoint's only delivery, once `done` holds for it. */
  async function deliveryOnce(endpointId: number, done: (delivery: Delivery) => boolean): Promise<Delivery> {
    let delivery: Delivery | undefined;
    await eventually(
      async () => {
        const response = await api().get(`/api/v2/admin/webhooks/${endpointId}/deliveries`).set(as(admin));
        delivery = (response.body.data as Delivery[])[0];
        return delivery !== undefined && done(delivery);
      },
      () => `The delivery is ${JSON.stringify(delivery)}`,
    );
    return delivery!;
  }

  /**
   * A delivery the dispatcher gave up on: the receiver fails, and once it has failed the event is made 25
   * hours old, so the next automatic try is the last one (the 24-hour window is over).
   */
  async function givenUpDelivery(path: string) {
    const partner = await fixtures.partner();
    const endpoint = await register(partner.companyId, path);
    failing.add(path);
    await place(partner);
    const first = await deliveryOnce(endpoint.id, (delivery) => delivery.attempts.length > 0);
    await service.db.query(
      `UPDATE webhook_deliveries SET created_at = now() - interval '25 hours' WHERE id = $1`,
      [first.id],
    );
    const delivery = await deliveryOnce(endpoint.id, (row) => row.status === 'failed');
    return { partner, endpoint, delivery };
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver((incoming) => (failing.has(incoming.path) ? 500 : 200));
    service = await startService({ env: FAST_DISPATCH });
    admin = await issueAdminToken(service.databaseUrl!);
    fixtures = new Fixtures(service.url, admin);
    productId = (await fixtures.product()).id;
  });

  afterAll(async () => {
    await service.stop();
    await receiver.close();
  });

  it('sends a given-up delivery again: same webhook-id, fresh timestamp and valid signature, a new attempt in the log, audited', async () => {
    const { endpoint, delivery } = await givenUpDelivery('/recovers');
    const before = receiver.at('/recovers');
    failing.delete('/recovers');
    // Timestamps are in seconds: wait for the next one, so a fresh signature cannot equal an old one.
    await new Promise((resolve) => setTimeout(resolve, 1_100));

    const response = await retry(endpoint.id, delivery.id);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: delivery.id,
      event_id: delivery.event_id,
      status: 'succeeded',
      attempt_count: delivery.attempt_count + 1,
      next_attempt_at: null,
    });
    expect(response.body.attempts).toHaveLength(delivery.attempts.length + 1);
    expect((response.body as Delivery).attempts.at(-1)).toMatchObject({ status_code: 200, error: null });
    const sent = receiver.at('/recovers');
    expect(sent).toHaveLength(before.length + 1);
    const again = sent.at(-1)!;
    expect(again.headers['webhook-id']).toBe(delivery.event_id);
    expect(again.headers['webhook-id']).toBe(before[0].headers['webhook-id']);
    expect(again.body).toBe(before[0].body);
    expect(Number(again.headers['webhook-timestamp'])).toBeGreaterThan(
      Number(before.at(-1)!.headers['webhook-timestamp']),
    );
    expect(again.headers['webhook-signature']).not.toBe(before.at(-1)!.headers['webhook-signature']);
    expect(hasValidSignature(again, endpoint.secret)).toBe(true);
    const stored = await service.db.query(
      'SELECT status, attempt_count, delivered_at FROM webhook_deliveries WHERE id = $1',
      [delivery.id],
    );
    expect(stored.rows[0]).toMatchObject({ status: 'succeeded', attempt_count: delivery.attempt_count + 1 });
    expect(stored.rows[0].delivered_at).not.toBeNull();
    const audit = await service.db.query(
      `SELECT action, user_name FROM audit_events WHERE target_type = 'webhook' AND target_id = $1 ORDER BY id`,
      [String(endpoint.id)],
    );
    expect(audit.rows.map((row: { action: string }) => row.action)).toEqual([
      'webhook.created',
      'webhook.delivery_retried',
    ]);
  });

  it('records a retry that fails again as one more attempt, and the delivery stays given up', async () => {
    const { endpoint, delivery } = await givenUpDelivery('/still-down');

    const response = await retry(endpoint.id, delivery.id);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'failed', attempt_count: delivery.attempt_count + 1 });
    expect((response.body as Delivery).attempts.at(-1)).toMatchObject({
      status_code: 500,
      error: 'HTTP 500 Internal Server Error',
    });
  });

  it('refuses a delivery that succeeded with 409, sending nothing', async () => {
    const partner = await fixtures.partner();
    const endpoint = await register(partner.companyId, '/fine');
    await place(partner);
    const delivery = await deliveryOnce(endpoint.id, (row) => row.status === 'succeeded');
    const sent = receiver.at('/fine').length;

    await retry(endpoint.id, delivery.id).expect(409, {
      message: 'This delivery has already succeeded: it is not sent again.',
    });
    expect(receiver.at('/fine')).toHaveLength(sent);
  });

  it('refuses a delivery still pending with 409: the dispatcher retries it on its own', async () => {
    const partner = await fixtures.partner();
    const endpoint = await register(partner.companyId, '/flapping');
    failing.add('/flapping');
    await place(partner);
    const delivery = await deliveryOnce(endpoint.id, (row) => row.attempts.length > 0);

    await retry(endpoint.id, delivery.id).expect(409, {
      message: 'This delivery is still being retried automatically: retry it by hand once it has failed.',
    });
  });

  it('refuses a delivery whose endpoint was deleted with 409', async () => {
    const { endpoint, delivery } = await givenUpDelivery('/deleted');
    await api().delete(`/api/v2/admin/webhooks/${endpoint.id}`).set(as(admin)).expect(200);

    await retry(endpoint.id, delivery.id).expect(409, {
      message:
        'This endpoint no longer receives deliveries (deleted, or it answered 410 Gone): register it again.',
    });
  });

  it("answers another endpoint's delivery, an unknown one and an unknown endpoint with 404", async () => {
    const { partner, delivery } = await givenUpDelivery('/owner');
    const other = await register(partner.companyId, '/other');
    const notFound = { message: 'Delivery not found: this endpoint has no delivery with this id.' };

    await retry(other.id, delivery.id).expect(404, notFound);
    for (const id of ['999999999999', 'abc', '0', '1234567890123456789']) {
      await retry(other.id, id).expect(404, notFound);
    }
    await retry(987654, delivery.id).expect(404, { message: 'Webhook not found.' });
    const stored = await service.db.query('SELECT status FROM webhook_deliveries WHERE id = $1', [
      delivery.id,
    ]);
    expect(stored.rows[0].status).toBe('failed');
  });

  it('keeps the route to admins: 403 for a partner token, 401 without a token', async () => {
    const { partner, endpoint, delivery } = await givenUpDelivery('/guarded');
    const sent = receiver.at('/guarded').length;

    await retry(endpoint.id, delivery.id, partner.token).expect(403, { message: 'Forbidden.' });
    await api()
      .post(`/api/v2/admin/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`)
      .expect(401, { message: 'Unauthenticated.' });
    expect(receiver.at('/guarded')).toHaveLength(sent);
  });
});
