// A webhook receiver: verifies each delivery (signature and timestamp) and acts on its typed event.
//
//   WEBHOOK_SECRET=whsec_... PORT=8080 node webhooks.js
//
// Prints one JSON line per delivery. Answer fast (2xx) and do the work afterwards: the service waits 15 s
// for an answer by default.
import { createServer } from 'node:http';
import process from 'node:process';
import { constructWebhookEvent, WebhookVerificationError } from '@restaurant-orders/sdk';

const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const secret = process.env.WEBHOOK_SECRET ?? '';

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    try {
      // The raw body, as it arrived: what the signature covers.
      const event = constructWebhookEvent(Buffer.concat(chunks), request.headers, secret);
      // `type` narrows the event: each type has its own `data`.
      switch (event.type) {
        case 'order.state_changed':
          print({ id: event.id, type: event.type, order_id: event.data.order_id, state: event.data.state });
          break;
        case 'order.placed':
          print({
            id: event.id,
            type: event.type,
            order_id: event.data.order_id,
            order_ref: event.data.order_ref,
          });
          break;
        default:
          // Any other type, including one a later version of the service adds (CHANGELOG: a compatible change).
          print({ id: event.id, type: event.type });
      }
      response.writeHead(204).end();
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      print({ refused: error.message });
      response.writeHead(400).end();
    }
  });
});
server.listen(Number(process.env.PORT ?? 8080), () => {
  const address = server.address();
  print({ listening: typeof address === 'object' && address ? address.port : null });
});
