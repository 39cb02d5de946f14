// A partner's webhook receiver for the Restaurant Orders API, with Node.js alone (no packages).
// It verifies every delivery as Standard Webhooks says, then acknowledges it at once with 204.
//
//   WEBHOOK_SECRET=whsec_... PORT=8080 node examples/webhook-receiver.mjs
//
// Prints one JSON line per verified event. In production, process events asynchronously and keep the
// processed webhook-ids in your database instead of in memory.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import process from 'node:process';

const TOLERANCE_SECONDS = 5 * 60;

/** True when the headers carry a valid signature of this raw body, made within the last 5 minutes. */
export function verifyWebhook(secret, headers, rawBody, nowSeconds = Date.now() / 1000) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return false;
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature = ''] = entry.split(',');
    const given = Buffer.from(signature, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('Set WEBHOOK_SECRET to the whsec_ secret the API returned for your endpoint.');
  process.exit(2);
}
const processed = new Set();

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const rawBody = Buffer.concat(chunks).toString('utf8'); // verify the raw bytes, before any JSON parsing
    if (!verifyWebhook(secret, request.headers, rawBody)) {
      response.writeHead(400).end();
      return;
    }
    const id = request.headers['webhook-id'];
    if (!processed.has(id)) {
      processed.add(id);
      const event = JSON.parse(rawBody);
      console.log(
        JSON.stringify({ verified: true, id: event.id, type: event.type, order_id: event.data.order_id }),
      );
    }
    response.writeHead(204).end();
  });
});
server.listen(Number(process.env.PORT ?? 8080), () => {
  console.log(JSON.stringify({ listening: server.address().port }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
