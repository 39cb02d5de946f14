import { once } from 'node:events';
import { createServer } from 'node:http';
import request from 'supertest';
import { issueAdminToken, startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';
import { Fixtures, orderBody, type Partner } from './harness/factories';
import {
  FAST_DISPATCH,
  hasValidSignature,
  startWebhookReceiver,
  type WebhookReceiver,
} from './harness/webhook-receiver';

interface Delivery {
  id: number;
  event_id: string;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  attempts: { status_code: number | null; error: string | null; duration_ms: number }[];
}

describe('retrying a webhook delivery by hand (CONTRACT §6)', () => {
  let service: TestApp;
  let receiver: WebhookReceiver;
  let admin: string;
  let fixtures: Fixtures;
  let productId: number;
  /** Paths the receiver answers 500 to; every other path gets 200. */
  const failing = new Set<string>();

  const api = () => request(service.url);
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const retry = (endpointId: number, deliveryId: number | string, token = admin) =>
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
    service = await startApp({ env: FAST_DISPATCH });
    admin = await issueAdminToken(service);
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

  /** A pending delivery the receiver failed once, its next automatic attempt an hour away. */
  async function pendingDelivery(path: string) {
    const partner = await fixtures.partner();
    const endpoint = await register(partner.companyId, path);
    failing.add(path);
    await place(partner);
    const first = await deliveryOnce(endpoint.id, (row) => row.attempts.length > 0);
    await service.db.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 hour' WHERE id = $1`,
      [first.id],
    );
    const delivery = await deliveryOnce(endpoint.id, (row) => row.next_attempt_at !== first.next_attempt_at);
    return { endpoint, delivery };
  }

  const nextAttemptAt = async (id: number): Promise<Date> =>
    (
      await service.db.query<{ next_attempt_at: Date }>(
        'SELECT next_attempt_at FROM webhook_deliveries WHERE id = $1',
        [id],
      )
    ).rows[0].next_attempt_at;

  it('sends a pending delivery again at once; once it succeeds no automatic attempt follows', async () => {
    const { endpoint, delivery } = await pendingDelivery('/fixed');
    failing.delete('/fixed');
    const sent = receiver.at('/fixed').length;

    const response = await retry(endpoint.id, delivery.id);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: delivery.id,
      status: 'succeeded',
      attempt_count: delivery.attempt_count + 1,
      next_attempt_at: null,
    });
    expect(receiver.at('/fixed')).toHaveLength(sent + 1);
    expect(receiver.at('/fixed').at(-1)!.headers['webhook-id']).toBe(delivery.event_id);
    // Were it still pending, the dispatcher would send it at its next poll (20 ms).
    await service.db.query('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1', [
      delivery.id,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.at('/fixed')).toHaveLength(sent + 1);
  });

  it('leaves a pending delivery on its automatic schedule when the hand retry fails', async () => {
    const { endpoint, delivery } = await pendingDelivery('/down-again');
    const scheduled = await nextAttemptAt(delivery.id);

    const response = await retry(endpoint.id, delivery.id);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'pending',
      attempt_count: delivery.attempt_count + 1,
      next_attempt_at: delivery.next_attempt_at,
    });
    expect((response.body as Delivery).attempts.at(-1)).toMatchObject({ status_code: 500 });
    expect(await nextAttemptAt(delivery.id)).toEqual(scheduled);
  });

  it('refuses with 409 while an attempt of the delivery is in flight, sending nothing', async () => {
    const { endpoint, delivery } = await pendingDelivery('/in-flight');
    await service.db.query(
      `UPDATE webhook_deliveries SET in_flight_until = now() + interval '1 minute' WHERE id = $1`,
      [delivery.id],
    );
    const sent = receiver.at('/in-flight').length;

    await retry(endpoint.id, delivery.id).expect(409, {
      message: 'An attempt of this delivery is being sent right now: see its result in the delivery log.',
    });
    expect(receiver.at('/in-flight')).toHaveLength(sent);
  });

  it('never sends one delivery twice at the same time when hand retries and the dispatcher contend for it', async () => {
    // A slow receiver that always fails: the delivery stays pending, and every request is open for 300 ms.
    const open = new Map<string, number>();
    let mostAtOnce = 0;
    let received = 0;
    const slow = createServer((incoming, response) => {
      const id = String(incoming.headers['webhook-id']);
      open.set(id, (open.get(id) ?? 0) + 1);
      mostAtOnce = Math.max(mostAtOnce, open.get(id)!);
      received += 1;
      incoming.resume();
      setTimeout(() => {
        open.set(id, open.get(id)! - 1);
        response.writeHead(500).end();
      }, 300);
    });
    slow.listen(0, '127.0.0.1');
    await once(slow, 'listening');
    try {
      const partner = await fixtures.partner();
      const address = slow.address() as { port: number };
      const endpoint = (
        await api()
          .post('/api/v2/admin/webhooks')
          .set(as(admin))
          .send({ company_id: partner.companyId, url: `http://127.0.0.1:${address.port}/slow` })
          .expect(201)
      ).body as { id: number };
      await place(partner);
      const delivery = await deliveryOnce(endpoint.id, (row) => row.attempts.length > 0);

      const until = Date.now() + 4_000;
      const answers: number[] = [];
      const handRetries = async () => {
        while (Date.now() < until) {
          answers.push((await retry(endpoint.id, delivery.id)).status);
          // Pauses of a few dispatcher polls, so that the dispatcher wins some claims too.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 150));
        }
      };
      // The backoff grows with every attempt: keep the delivery due, so the dispatcher contends throughout.
      const keepDue = async () => {
        while (Date.now() < until) {
          await service.db.query('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1', [
            delivery.id,
          ]);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      await Promise.all([handRetries(), handRetries(), keepDue()]);
      await eventually(
        () => [...open.values()].every((count) => count === 0),
        () => 'The last attempt did not end',
      );

      expect(mostAtOnce).toBe(1);
      expect(new Set(answers)).toEqual(new Set([200, 409]));
      const accepted = answers.filter((status) => status === 200).length;
      expect(received).toBeGreaterThan(accepted + 1);
      const log = await deliveryOnce(endpoint.id, (row) => row.attempts.length === received);
      expect(log.attempt_count).toBe(received);
    } finally {
      await new Promise((resolve) => {
        slow.close(resolve);
        slow.closeAllConnections();
      });
    }
  });

  it('answers a delivery whose endpoint was deleted with 404, sending nothing', async () => {
    const { endpoint, delivery } = await givenUpDelivery('/deleted');
    await api().delete(`/api/v2/admin/webhooks/${endpoint.id}`).set(as(admin)).expect(200);
    const received = receiver.at('/deleted').length;

    await retry(endpoint.id, delivery.id).expect(404, { message: 'Webhook not found.' });
    expect(receiver.at('/deleted')).toHaveLength(received);
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
