import type { Browser, Page } from 'playwright-core';
import { issueAdminToken } from '../harness/cli';
import { expectAccessible, expectTitle, openConsoleBrowser, shot, signIn } from '../harness/console-page';
import { eventually } from '../harness/eventually';
import { Fixtures, orderBody, type Partner } from '../harness/factories';
import { api, as, type RunningService, startService } from '../harness/service';

// Each step drives a real browser: allow for a busy machine.
jest.setTimeout(120_000);

/**
 * The console's request log screens (CONTRACT §4.12) in a real browser against the compiled service: a company's
 * requests, filtered by status, and a request's detail with the order it placed and links to its deliveries.
 */
describe("the admin console's request log", () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let admin: string;
  let partner: Partner;
  let orderId: number;
  let placement: string;
  let failed: string;
  let cspViolations: string[];

  beforeAll(async () => {
    service = await startService({ env: { REQUEST_LOG_FLUSH_MS: '50' } });
    admin = await issueAdminToken(service.databaseUrl!);
    const fixtures = new Fixtures(service.url, admin);
    partner = await fixtures.partner();
    const productId = (await fixtures.product()).id;
    const placed = await api(service).post('/api/v2/order').set(as(partner.token)).send(orderBody(productId));
    expect(placed.status).toBe(201);
    orderId = Number(placed.body.orders[0].order_id);
    placement = placed.headers['x-request-id'];
    const refused = await api(service).get('/api/v2/order/999999999').set(as(partner.token)).expect(404);
    failed = refused.headers['x-request-id'];
    await eventually(
      async () =>
        (
          await service.db.query('SELECT 1 FROM request_log WHERE request_id = ANY($1)', [
            [placement, failed],
          ])
        ).rowCount === 2,
      () => 'the requests never reached the request log',
    );
    ({ browser, page, cspViolations } = await openConsoleBrowser());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it("lists a company's requests, filters them by status, and opens one with what it caused", async () => {
    await page.goto(`${service.url}/console/`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
    await page.getByRole('link', { name: `Requests of ${await companyName()}` }).click();
    await page.getByRole('heading', { name: `Requests of company ${partner.companyId}` }).waitFor();
    await expectTitle(page, `Requests of company ${partner.companyId}`);
    await page.getByRole('link', { name: `GET /api/v2/order/999999999` }).waitFor();
    await page.getByRole('link', { name: 'POST /api/v2/order' }).waitFor();
    await expectAccessible(page, 'requests');
    await shot(page, 'requests');

    await page.getByLabel('Status').fill('4xx');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await eventually(
      async () => (await page.locator('tbody tr').count()) === 1,
      () => 'the 4xx filter did not leave the one failed request',
    );
    expect(page.url()).toContain(`#/requests?company_id=${partner.companyId}&status=4xx`);
    await page.getByRole('link', { name: 'GET /api/v2/order/999999999' }).click();
    await page.getByRole('heading', { name: `Request ${failed}` }).waitFor();
    await page.getByText('"message": "Order not found."').waitFor();

    await page.goto(`${service.url}/console/#/requests/${placement}`);
    await page.getByRole('heading', { name: `Request ${placement}` }).waitFor();
    const orderLink = page.getByRole('link', { name: /^SK-\d{7} \(PLACED\)$/ });
    await orderLink.waitFor();
    expect(await orderLink.getAttribute('href')).toBe(`#/orders/${orderId}`);
    await page.getByText('order.placed').waitFor();
    await expectAccessible(page, 'request');
    await shot(page, 'request');
    await orderLink.click();
    await page.getByRole('heading', { name: /^Order SK-\d{7}$/ }).waitFor();
    expect(cspViolations).toEqual([]);
  });

  async function companyName(): Promise<string> {
    const company = await api(service)
      .get(`/api/v2/admin/companies/${partner.companyId}`)
      .set(as(admin))
      .expect(200);
    return company.body.name as string;
  }
});
