import type { Browser, Page } from 'playwright-core';
import { issueAdminToken } from '../harness/cli';
import {
  expectAccessible,
  expectTitle,
  inPage,
  openConsoleBrowser,
  shot,
  tabTo,
} from '../harness/console-page';
import { Fixtures, orderBody, type Partner } from '../harness/factories';
import { eventually } from '../harness/eventually';
import { api, as, type RunningService, startService } from '../harness/service';
import { FAST_DISPATCH, startWebhookReceiver, type WebhookReceiver } from '../harness/webhook-receiver';

// Each step drives a real browser: allow for a busy machine.
jest.setTimeout(120_000);

/**
 * The console's order screens (CONTRACT §6) in a real browser against the compiled service: an administrator
 * on a partner's call finds the order by the reference the partner reads out, with the keyboard alone, sees
 * its company, who changed it and which of its events failed to reach the partner's endpoint.
 */
describe('the console’s order lookup and order screen', () => {
  let service: RunningService;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let admin: string;
  let partner: Partner;
  let updater: Partner;
  let companyName: string;
  let orderId: number;
  let orderRef: string;
  let endpointId: number;
  let cspViolations: string[];

  /** The focused element as a screen reader names it (its label, else its text). */
  const focused = () =>
    inPage<string>(
      page,
      "document.activeElement.labels?.[0]?.textContent || document.activeElement.getAttribute('aria-label') || document.activeElement.textContent.trim()",
    );

  beforeAll(async () => {
    receiver = await startWebhookReceiver((incoming) => (incoming.path === '/down' ? 500 : 200));
    service = await startService({ env: { ...FAST_DISPATCH, WEBHOOK_TIMEOUT_MS: '10000' } });
    admin = await issueAdminToken(service.databaseUrl!);
    const fixtures = new Fixtures(service.url, admin);
    // Names as a restaurant's would read: docs/console.md shows these screens.
    partner = await fixtures.partnerOf(await fixtures.company('SK', 'Trattoria Roma'), 'SK', 'maria');
    updater = await fixtures.partnerOf(partner.companyId, 'SK', 'peter');
    const companies = (await api(service).get('/api/v2/admin/companies').set(as(admin)).expect(200)).body.data as {
      id: number;
      name: string;
    }[];
    companyName = companies.find((company) => company.id === partner.companyId)!.name;
    endpointId = (
      await api(service)
        .post('/api/v2/admin/webhooks')
        .set(as(admin))
        .send({ company_id: partner.companyId, url: `${receiver.url}/down` })
        .expect(201)
    ).body.id;
    const productId = (await fixtures.product([], 'POS terminal S2')).id;
    const placed = await api(service)
      .post('/api/v2/order')
      .set(as(partner.token))
      .send(
        orderBody(productId, {
          first_name: 'Jana',
          last_name: 'Horváthová',
          consignee: 'Trattoria Roma',
          city: 'Bratislava',
        }),
      )
      .expect(201);
    orderId = Number(placed.body.orders[0].order_id);
    orderRef = placed.body.orders[0].order_ref;
    await api(service)
      .post(`/api/v2/order/${orderId}/update`)
      .set(as(updater.token))
      .send({ email: 'jana.horvathova@example.com' })
      .expect(200);
    // Both events' deliveries have been tried and refused at least once.
    await receiver.waitFor(
      (received) => new Set(received.map((entry) => entry.headers['webhook-id'])).size >= 2,
    );
    ({ browser, page, cspViolations } = await openConsoleBrowser());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await receiver?.close();
  });

  it('finds an order by its reference and opens it, with the keyboard alone', async () => {
    await page.goto(`${service.url}/console/`);
    await page.getByRole('heading', { name: 'Admin console' }).waitFor();
    await tabTo(page, 'Admin token', focused);
    await page.keyboard.type(admin);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Companies' }).waitFor();

    await tabTo(page, 'Orders', focused);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
    await expectTitle(page, 'Orders');
    await tabTo(page, 'Order id or reference', focused);
    // As a partner reads it out: any case, the zeros left out.
    await page.keyboard.type(`sk-${orderId}`);
    await page.keyboard.press('Enter');
    const found = page.getByRole('region', { name: 'Orders found' });
    await found.getByRole('link', { name: orderRef }).waitFor();
    // The list before the filter may show the order too: wait for the filtered one, whose address names it.
    await page.waitForURL(`**/#/orders?order=sk-${orderId}`);
    await eventually(
      async () => (await found.locator('tbody tr').count()) === 1,
      () => 'the filtered list does not show the one order',
    );
    expect(await found.locator('tbody tr').innerText()).toContain(companyName);
    expect(page.url()).toContain(`#/orders?order=sk-${orderId}`);
    await expectAccessible(page, 'orders');
    await shot(page, 'orders');

    await tabTo(page, orderRef, focused);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: `Order ${orderRef}` }).waitFor();
    await expectTitle(page, `Order ${orderRef}`);
  });

  it('shows the company, who changed the order and which of its events failed to deliver', async () => {
    const summary = page.getByRole('region', { name: 'Summary' });
    expect(await summary.innerText()).toContain(`${companyName} (SK, id ${partner.companyId})`);
    const timeline = page.getByRole('region', { name: 'Timeline' });
    const entries = await timeline.locator('ol.timeline > li').allInnerTexts();
    expect(entries).toHaveLength(4);
    expect(entries[0]).toContain(`order.placed by ${partner.userName}`);
    expect(entries[2]).toContain(`order.updated by ${updater.userName} (token ${updater.tokenId}, partner`);
    expect(entries[2]).toContain(': email');
    expect(entries[3]).toMatch(/event order\.updated evt_\d+/);
    expect(entries[3]).toMatch(/Delivery \d+ to .*\/down: pending, \d+ attempts? · last .*: 500 \(HTTP 500/);
    const delivery = timeline
      .locator('ol.timeline > li')
      .nth(3)
      .getByRole('link', { name: /^Delivery \d+$/ });
    const deliveryId = (await delivery.innerText()).replace('Delivery ', '');
    expect(await delivery.getAttribute('href')).toBe(`#/webhooks/${endpointId}/deliveries/${deliveryId}`);
    expect(await timeline.getByRole('link', { name: `token ${updater.tokenId}` }).getAttribute('href')).toBe(
      `#/companies/${partner.companyId}/tokens`,
    );
    await expectAccessible(page, 'order');
    await shot(page, 'order');
  });

  it('links the audit trail’s order entries to the order screen', async () => {
    await page.goto(`${service.url}/console/#/audit?company_id=${partner.companyId}`);
    const link = page.getByRole('link', { name: `order ${orderId}` }).first();
    await link.waitFor();
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: `Order ${orderRef}` }).waitFor();
  });

  it('shows the API’s error messages as they come', async () => {
    await page.goto(`${service.url}/console/#/orders?order=SK0000123`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('Bad request.');
    expect(await alert.innerText()).toContain(
      'order_ref: The order reference must be a site, a dash and the order id, like SK-0000123.',
    );
    await page.goto(`${service.url}/console/#/orders/2147483647`);
    await page.getByRole('alert').getByText('Order not found.').waitFor();
    await expectTitle(page, 'Order 2147483647');
    expect(cspViolations).toEqual([]);
  });
});
