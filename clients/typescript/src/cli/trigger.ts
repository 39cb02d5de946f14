import type { RestaurantOrdersClient, Schema } from '../client.js';
import { unwrap } from '../errors.js';
import { type EventType, TRIGGERS } from './event-types.js';
import { CliError, type CliIo } from './io.js';

/** The test order `trigger` places: sample data, marked TEST so it never reaches logistics. */
const SAMPLE_ORDER = {
  first_name: 'Test',
  last_name: 'Trigger',
  consignee: 'restaurant-orders trigger',
  email: 'trigger@example.com',
  phone: '+421900000000',
  zip: '81101',
  city: 'Bratislava',
  street: 'Sandbox',
  house_number: '1',
  login: 'trigger',
  password: 'trigger-device',
  order_type: 'REGULAR',
  merchant_id: 'TRIGGER',
  test: true,
} as const satisfies Partial<Schema<'PlaceOrderDto'>>;

/**
 * `trigger <event type>`: the event happens for real (CONTRACT §4.9). A new TEST order is placed and taken, by the
 * partner's own writes or the sandbox's moves, to where the event fires; every event on the way goes to the feed
 * and the webhooks as a real order's would. One line per step.
 */
export async function trigger(
  client: RestaurantOrdersClient,
  io: CliIo,
  type: EventType,
  productId: number | undefined,
): Promise<void> {
  const how = TRIGGERS[type];
  if ('impossible' in how) throw new CliError(`${type} cannot be triggered: ${how.impossible}.`);
  const product = await chooseProduct(client, productId);
  const body = {
    ...SAMPLE_ORDER,
    product_id: product.id,
    ...(product.variations.length > 0 ? { product_variation_id: product.variations[0].id } : {}),
  };
  const { id, reference } = how.imported ? await placeByImport(client, io, body) : await place(client, body);
  io.out(`Placed TEST order ${reference} (order ${id}, product "${product.name}")`);
  const path = { id };
  for (const step of how.steps) {
    if ('update' in step) {
      await unwrap(client.updateOrder({ params: { path }, body: step.update }));
      io.out(`Updated ${reference}`);
    } else if ('comment' in step) {
      await unwrap(client.commentOnOrder({ params: { path }, body: { partner_comment: step.comment } }));
      io.out(`Commented on ${reference}`);
    } else {
      const order = await unwrap(client.simulateOrder({ params: { path }, body: { to: step.simulate } }));
      io.out(`Moved ${reference} to ${order.state} in the sandbox`);
    }
  }
  io.out(`${type} fired for ${reference}: your events feed and your webhooks have it.`);
}

type SampleOrder = Schema<'PlaceOrderDto'>;

interface Placed {
  id: number;
  reference: string;
}

async function place(client: RestaurantOrdersClient, body: SampleOrder): Promise<Placed> {
  const [placed] = (await unwrap(client.placeOrder({ body }))).orders;
  return { id: Number(placed.order_id), reference: placed.order_ref };
}

/** Places the order as the only line of a bulk import, waited for until it has completed. */
async function placeByImport(client: RestaurantOrdersClient, io: CliIo, body: SampleOrder): Promise<Placed> {
  let importId: number | undefined;
  for await (const result of client.importOrders(`${JSON.stringify(body)}\n`, {
    pollIntervalMs: 200,
    onProgress: (progress) => (importId = progress.id),
  })) {
    if (result.order_id === undefined)
      throw new CliError(`The import refused the TEST order: ${JSON.stringify(result.errors)}.`);
    io.out(`Imported the TEST order in import ${importId}`);
    const path = { id: result.order_id };
    const { order_ref: reference } = await unwrap(client.getOrder({ params: { path } }));
    return { id: result.order_id, reference };
  }
  throw new CliError(`Import ${importId} gave no result for its one line.`);
}

/** The product named, or the first of the company's products. */
async function chooseProduct(
  client: RestaurantOrdersClient,
  productId: number | undefined,
): Promise<Schema<'ProductResponse'>> {
  if (productId === undefined) {
    const [first] = (await unwrap(client.listProducts({ params: { query: { per_page: 1 } } }))).data;
    if (!first)
      throw new CliError('The service has no active product to order: an administrator creates one.');
    return first;
  }
  for await (const product of client.paginate('/api/v2/product'))
    if (product.id === productId) return product;
  throw new CliError(
    `Product ${productId} is not an active product: leave --product out to use the first one.`,
  );
}
