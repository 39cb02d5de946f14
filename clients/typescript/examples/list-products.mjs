// The SDK from plain JavaScript (no types, no build step):
//
//   RESTAURANT_ORDERS_URL=http://localhost:3000 RESTAURANT_ORDERS_TOKEN=<partner token> node list-products.mjs
import process from 'node:process';
import { createRestaurantOrdersClient, RestaurantOrdersError, unwrap } from '@restaurant-orders/sdk';

const client = createRestaurantOrdersClient(
  process.env.RESTAURANT_ORDERS_URL,
  process.env.RESTAURANT_ORDERS_TOKEN,
);
for await (const product of client.paginate('/api/v2/product')) {
  process.stdout.write(`${JSON.stringify({ product: product.name })}\n`);
}
try {
  await unwrap(client.getOrder({ params: { path: { id: 2_000_000_000 } } }));
} catch (error) {
  if (!(error instanceof RestaurantOrdersError)) throw error;
  process.stdout.write(`${JSON.stringify({ status: error.status, request_id: error.requestId })}\n`);
}
