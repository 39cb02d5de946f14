import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { issueAdminToken } from '../harness/cli';
import { Fixtures, orderBody } from '../harness/factories';
import { CONCURRENCY, ENV, halfWrittenOrders, REQUEST_BOUND_MS } from '../harness/faults';
import { type RunningService, startService } from '../harness/service';
import { createTestDatabase } from '../harness/test-database';

/**
 * Faults (CONTRACT §2, §8) where the process is the subject: SIGTERM and SIGKILL under concurrent load (the
 * database's faults run in process: test/faults.e2e-spec.ts).
 */

interface Answer {
  status: number;
  body: unknown;
}

async function setUp(service: RunningService, databaseUrl: string) {
  return new Fixtures(service.url, await issueAdminToken(databaseUrl)).partnerWithOrder();
}

/**
 * A request held open at the server: its headers go out with `Expect: 100-continue`, and the server's
 * `100 Continue` proves it accepted the request; `send()` then writes the body.
 */
function heldRequest(port: number, method: string, path: string, token: string, body = '') {
  let onContinue: () => void = () => {};
  let onError: (error: Error) => void = () => {};
  const accepted = new Promise<void>((resolve, reject) => {
    onContinue = resolve;
    onError = reject;
  });
  const outgoing = httpRequest({
    host: '127.0.0.1',
    port,
    method,
    path,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
      expect: '100-continue',
    },
    timeout: REQUEST_BOUND_MS,
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    outgoing.on('response', (incoming) => {
      let text = '';
      incoming.on('data', (chunk: Buffer) => (text += chunk.toString()));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: JSON.parse(text) }));
    });
    outgoing.on('error', (error) => {
      onError(error);
      reject(error);
    });
  });
  outgoing.on('continue', onContinue);
  outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${path}: no answer in time`)));
  return { accepted, answer, send: () => outgoing.end(body) };
}

async function until(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 100 && !condition(); attempt += 1)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('SIGTERM under load', () => {
  it('finishes every request accepted before the signal, with no 5xx and no reset, then exits 0', async () => {
    const service = await startService({ env: ENV });
    const { partner, productId, orderId } = await setUp(service, service.databaseUrl!);
    const port = Number(new URL(service.url).port);
    const requests = Array.from({ length: CONCURRENCY }, (_, n) => {
      if (n % 3 === 0)
        return {
          expected: 201,
          held: heldRequest(
            port,
            'POST',
            '/api/v2/order',
            partner.token,
            JSON.stringify(orderBody(productId)),
          ),
        };
      const path = n % 3 === 1 ? '/api/v2/order?per_page=5' : `/api/v2/order/${orderId}`;
      return { expected: 200, held: heldRequest(port, 'GET', path, partner.token) };
    });
    await Promise.all(requests.map((entry) => entry.held.accepted));

    service.process.kill('SIGTERM');
    await until(() => service.logs().some((line) => line.event === 'shutdown'));
    for (const entry of requests) entry.held.send();
    const answers = await Promise.all(requests.map((entry) => entry.held.answer));

    expect(answers.map((answer) => answer.status)).toEqual(requests.map((entry) => entry.expected));
    const placedIds = answers
      .filter((answer) => answer.status === 201)
      .map((answer) => Number((answer.body as { orders: { order_id: string }[] }).orders[0].order_id));
    const { rows } = await service.db.query<{ id: number }>('SELECT id FROM orders WHERE id = ANY($1)', [
      placedIds,
    ]);
    expect(rows).toHaveLength(placedIds.length);
    expect(await halfWrittenOrders(service.db)).toEqual([]);
    expect(await service.stop()).toBe(0);
  });
});

describe('SIGKILL in the middle of many placements', () => {
  it('leaves no half-written order, and a restarted service serves every order that was written', async () => {
    const databaseUrl = await createTestDatabase();
    const service = await startService({ env: { ...ENV, DATABASE_URL: databaseUrl } });
    const { partner, productId } = await setUp(service, databaseUrl);
    let answered = 0;
    let enough: () => void = () => {};
    const enoughAnswered = new Promise<void>((resolve) => (enough = resolve));
    const placements = Array.from({ length: CONCURRENCY * 3 }, async () => {
      try {
        const response = await request(service.url)
          .post('/api/v2/order')
          .set('Authorization', `Bearer ${partner.token}`)
          .send(orderBody(productId))
          .timeout(REQUEST_BOUND_MS);
        answered += 1;
        if (answered === CONCURRENCY) enough();
        return response.status === 201 ? Number(response.body.orders[0].order_id) : undefined;
      } catch {
        return undefined;
      }
    });
    await enoughAnswered;
    service.process.kill('SIGKILL');
    const confirmed = (await Promise.all(placements)).filter((id): id is number => id !== undefined);

    const db = service.db;
    expect(await halfWrittenOrders(db)).toEqual([]);
    const { rows } = await db.query<{ id: number }>('SELECT id FROM orders ORDER BY id');
    const stored = rows.map((row) => row.id);
    expect(stored).toEqual(expect.arrayContaining(confirmed));
    await service.stop();

    const restarted = await startService({ env: { ...ENV, DATABASE_URL: databaseUrl } });
    try {
      for (const id of stored) {
        const response = await request(restarted.url)
          .get(`/api/v2/order/${id}`)
          .set('Authorization', `Bearer ${partner.token}`)
          .expect(200);
        expect(response.body.order_id).toBe(id);
      }
    } finally {
      await restarted.stop();
    }
  });
});
