import { Api, HttpClient, type OrderEvent } from './api';

/*
 * A partner's, a courier's and an administrator's code against the client swagger-typescript-api generates from
 * the served document (test/system/swagger-typescript-api-client.system-spec.ts generates it beside this file in a scratch
 * folder and compiles both under `strict`). Every operation of the document is called once, and no value is
 * cast: the generated types must be enough on their own.
 */

const client = (baseUrl: string, token: string) =>
  new Api(new HttpClient({ baseUrl, baseApiParams: { headers: { Authorization: `Bearer ${token}` } } }));

/** The ETag of a response that returns an order, to send back as If-Match. */
const ifMatch = (response: Response) => ({ headers: { 'If-Match': response.headers.get('etag') ?? '*' } });

export async function administer(baseUrl: string, adminToken: string): Promise<string[]> {
  const admin = client(baseUrl, adminToken).api;
  const company = await admin.createCompany({ name: 'Bistro Group', site: 'sk' });
  await admin.listCompanies({ page: 1, per_page: 25, name: 'bistro' });
  await admin.getCompany(company.data.id);
  const token = await admin.issueToken({
    role: 'partner',
    user_name: 'alice',
    company_id: company.data.id,
    expires_at: '2030-01-01',
  });
  await admin.listTokens({ company_id: company.data.id });
  await admin.revokeToken(token.data.id);
  const reporting = await admin.issueToken({
    role: 'partner',
    user_name: 'reporting',
    company_id: company.data.id,
    read_only: true,
  });
  await admin.rollToken(reporting.data.id, { previous_expires_at: null });
  await admin.listAuditEvents({ company_id: company.data.id });

  const product = await admin.createProduct({ name: 'Terminal', variations: [{ name: 'Black' }] });
  await admin.updateProduct(product.data.id, { active: 'true' });
  await admin.addProductVariation(product.data.id, { name: 'White' });
  await admin.listAdminProducts({ per_page: 25 });

  const webhook = await admin.createWebhook({
    company_id: company.data.id,
    url: 'https://hooks.example.com/restaurant-orders',
  });
  await admin.listWebhooks({ company_id: company.data.id });
  await admin.getWebhook(webhook.data.id);
  await admin.updateWebhook(webhook.data.id, { event_types: ['order.placed', 'order.state_changed'] });
  await admin.rotateWebhookSecret(webhook.data.id, { previous_secret_expires_at: null });
  const deliveries = await admin.listWebhookDeliveries(webhook.data.id, { per_page: 25, status: 'failed' });
  for (const delivery of deliveries.data.data) {
    const detail = await admin.getWebhookDelivery(webhook.data.id, delivery.id);
    if (detail.data.status === 'failed') await admin.retryWebhookDelivery(webhook.data.id, delivery.id);
  }

  const imports = await admin.listAdminImports({ company_id: company.data.id });
  for (const { id } of imports.data.data) {
    await admin.getAdminImport(id);
    await admin.getAdminImportResults(id);
  }
  const requests = await admin.listAdminRequests({ company_id: company.data.id, status: '5xx' });
  for (const { request_id } of requests.data.data) await admin.getAdminRequest(request_id);
  await admin.listAdminRequestErrors({ company_id: company.data.id });

  const orders = await admin.listAdminOrders({ company_id: company.data.id, state: 'PLACED' });
  for (const { order } of orders.data.data) await admin.getAdminOrder(order.order_id);
  await admin.deleteWebhook(webhook.data.id);
  return [webhook.data.secret];
}

export async function partner(baseUrl: string, partnerToken: string): Promise<OrderEvent[]> {
  const api = client(baseUrl, partnerToken).api;
  const products = await api.listProducts({ per_page: 25 });
  const placed = await api.placeOrder({
    first_name: 'Jana',
    last_name: 'Nováková',
    consignee: 'Bistro Group',
    email: 'jana@example.com',
    phone: '+421900123456',
    zip: '81101',
    city: 'Bratislava',
    street: 'Obchodná',
    house_number: '12',
    product_id: products.data.data[0].id,
    login: 'bistro-12',
    password: 'device-secret',
    order_type: 'REGULAR',
    merchant_id: 'M-4411',
    dinein: 'false',
  });
  const id = Number(placed.data.orders[0].order_id);
  await api.listOrders({ delivered: false, created_from: '2026-11-01' });
  await api.listOrdersAtOrdersPath({ order_id: String(id) });
  const read = await api.getOrder(id);
  const updated = await api.updateOrder(id, { city: 'Košice' }, ifMatch(read));
  await api.commentOnOrder(id, { partner_comment: 'Before noon, please.' });
  await api.cancelOrder(id, ifMatch(updated));

  const test = await api.placeOrder(sandboxOrder(products.data.data[0].id));
  const testId = Number(test.data.orders[0].order_id);
  const delivered = await api.simulateOrder(testId, { to: 'DELIVERED' });
  await api.simulateOrder(testId, { to: 'COMPLETED' }, ifMatch(delivered));
  await api.checkOrdersExport({ format: 'ndjson', order_id: String(testId) });
  await api.exportOrders({ format: 'ndjson', order_id: String(testId) });

  const hook = await api.createPartnerWebhook({ url: 'https://hooks.example.com/bistro' });
  await api.listPartnerWebhooks({ per_page: 25 });
  await api.getPartnerWebhook(hook.data.id);
  await api.updatePartnerWebhook(hook.data.id, { enabled: 'true' });
  await api.rotatePartnerWebhookSecret(hook.data.id, {});
  const log = await api.listPartnerWebhookDeliveries(hook.data.id, { event_type: 'order.placed' });
  for (const delivery of log.data.data)
    if (delivery.status === 'failed') await api.retryPartnerWebhookDelivery(hook.data.id, delivery.id);
  await api.deletePartnerWebhook(hook.data.id);

  const upload = await api.uploadOrderImport(`${JSON.stringify(sandboxOrder(products.data.data[0].id))}\n`, {
    dry_run: true,
  });
  await api.listImports({ per_page: 25 });
  await api.getImport(upload.data.id);
  await api.getImportResults(upload.data.id);
  const requests = await api.listRequests({ status: '4xx', route: '/api/v2/order/:id' });
  for (const { request_id } of requests.data.data) await api.getRequest(request_id);
  await api.listRequestErrors({});

  const events = await api.listEvents({});
  return events.data.data.filter((event) => event.type === 'order.placed');
}

/** A test order: it goes through the sandbox, never to logistics. */
const sandboxOrder = (productId: number) => ({
  first_name: 'Test',
  last_name: 'Order',
  consignee: 'Bistro Group',
  email: 'test@example.com',
  phone: '+421900123456',
  zip: '81101',
  city: 'Bratislava',
  street: 'Obchodná',
  house_number: '12',
  product_id: productId,
  login: 'bistro-test',
  password: 'device-secret',
  order_type: 'REGULAR' as const,
  merchant_id: 'M-4411',
  test: true,
});

export async function deliver(baseUrl: string, logisticsToken: string): Promise<string> {
  const api = client(baseUrl, logisticsToken).api;
  const queue = await api.listLogisticsQueue({ state: 'PLACED' });
  const order = queue.data.data[0];
  const sent = await api.markOrderSent(order.order_id, { headers: { 'If-Match': `"${order.version}"` } });
  const tracking = await api.putTracking(
    order.order_id,
    'PKG1',
    {
      status: 'Picked up',
      dispatch_date: '2026-11-21T08:00',
      tracking_link: 'https://track.example.com/PKG1',
    },
    ifMatch(sent),
  );
  const status = await api.addDetailedStatus(
    order.order_id,
    { status: 'Out for delivery', status_date: '2026-11-22T07:30:15' },
    ifMatch(tracking),
  );
  const failed = await api.addDeliveryError(
    order.order_id,
    { status: 'Nobody home', date: '2026-11-22', resolution: 'Information' },
    ifMatch(status),
  );
  const patched = await api.updateLogisticsData(order.order_id, { serial_number: 'SN-1' }, ifMatch(failed));
  return patched.data.state;
}

export async function monitor(baseUrl: string): Promise<boolean> {
  const health = new Api(new HttpClient({ baseUrl })).health;
  const live = await health.getLiveness();
  const ready = await health.getReadiness();
  return live.data.status === 'ok' && ready.ok;
}
