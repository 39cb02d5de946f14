// Places orders, lists every one of them across pages and handles an error, with the SDK's retries on:
//
//   RESTAURANT_ORDERS_URL=http://localhost:3000 RESTAURANT_ORDERS_TOKEN=<partner token> node orders.js
//
// Prints one JSON line per step.
import process from 'node:process';
import { createRestaurantOrdersClient, RestaurantOrdersError, unwrap } from '@restaurant-orders/sdk';

const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

const client = createRestaurantOrdersClient(
  process.env.RESTAURANT_ORDERS_URL ?? 'http://localhost:3000',
  process.env.RESTAURANT_ORDERS_TOKEN ?? '',
  {
    // What is safe to send again is sent again (twice at most); a write keeps its Idempotency-Key.
    retry: {
      onRetry: ({ status, error, waitMs, request }) =>
        print({
          retry: status ?? error?.kind,
          wait_ms: waitMs,
          idempotency_key: request.headers.get('Idempotency-Key'),
        }),
    },
  },
);

// Every page of a list, one request per page.
const products = [];
for await (const product of client.paginate('/api/v2/product')) products.push(product);
const [product] = products;
if (!product) throw new Error('No active product to order.');

// Each placement carries an Idempotency-Key of its own: sent again after a 429 or a lost answer, it is one order.
for (let count = 0; count < Number(process.env.PLACEMENTS ?? 1); count += 1) {
  const placed = await unwrap(
    client.placeOrder({
      body: {
        first_name: 'Jana',
        last_name: 'Nováková',
        consignee: 'Bistro Group',
        email: 'jana@example.com',
        phone: '+421900123456',
        zip: '81101',
        city: 'Bratislava',
        street: 'Obchodná',
        house_number: '12',
        product_id: product.id,
        product_variation_id: product.variations[0]?.id ?? null,
        login: 'bistro-12',
        password: 'device-secret',
        order_type: 'REGULAR',
        merchant_id: 'M-4411',
      },
    }),
  );
  print({ placed: placed.orders[0].order_ref });
}

let listed = 0;
for await (const order of client.paginate('/api/v2/order', { params: { query: { per_page: 2 } } })) {
  if (order.state === 'PLACED') listed += 1;
}
print({ listed });

// Anything but a success throws a RestaurantOrdersError: status, body and the request id for support.
try {
  await unwrap(client.getOrder({ params: { path: { id: 2_000_000_000 } } }));
} catch (error) {
  if (!(error instanceof RestaurantOrdersError)) throw error;
  print({ status: error.status, message: error.message, body: error.body, request_id: error.requestId });
}
