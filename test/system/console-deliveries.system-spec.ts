import type { Browser, Page } from 'playwright-core';
import { issueAdminToken } from '../harness/cli';
import {
  expectAccessible,
  expectTitle,
  inPage,
  openConsoleBrowser,
  shot,
  signIn,
} from '../harness/console-page';
import { eventually } from '../harness/eventually';
import { Fixtures, orderBody } from '../harness/factories';
import { api, as, type RunningService, startService } from '../harness/service';
import { FAST_DISPATCH, startWebhookReceiver, type WebhookReceiver } from '../harness/webhook-receiver';

// Each step drives a real browser: allow for a busy machine.
jest.setTimeout(120_000);

/**
 * The console's delivery log filters and its delivery screen (CONTRACT §6), in a real browser against the
 * compiled service: the flow walked with the keyboard alone, checked with axe, under the strict CSP.
 */
describe('the console finds a delivery and shows what it sent and got back', () => {
  let service: RunningService;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let admin: string;
  let receiverFails = true;
  let companyId: number;
  let endpointId: number;
  let otherEndpointId: number;
  let cspViolations: string[];

  /** Focuses a control the way Tab would reach it, then works it with keys only. */
  const press = async (name: string | RegExp, role: 'button' | 'link' = 'button', key = 'Enter') => {
    await page.getByRole(role, { name }).focus();
    await page.keyboard.press(key);
  };

  async function register(company: number): Promise<number> {
    const response = await api(service)
      .post('/api/v2/admin/webhooks')
      .set(as(admin))
      .send({ company_id: company, url: `${receiver.url}/hook` });
    expect(response.status).toBe(201);
    return response.body.id as number;
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver(() => (receiverFails ? 503 : 200));
    service = await startService({ env: { ...FAST_DISPATCH, WEBHOOK_TIMEOUT_MS: '5000' } });
    admin = await issueAdminToken(service.databaseUrl!);
    const fixtures = new Fixtures(service.url, admin);
    const productId = (await fixtures.product([], 'POS terminal S2')).id;
    // Names as a restaurant's would read: docs/console.md shows these screens.
    const partner = await fixtures.partnerOf(await fixtures.company('SK', 'Pizzeria Napoli'), 'SK', 'luca');
    companyId = partner.companyId;
    endpointId = await register(companyId);
    otherEndpointId = await register((await fixtures.partner()).companyId);
    const orderId = (
      await api(service).post('/api/v2/order').set(as(partner.token)).send(orderBody(productId)).expect(201)
    ).body.orders[0].order_id as number;
    await api(service)
      .post(`/api/v2/order/${orderId}/comment`)
      .set(as(partner.token))
      .send({ partner_comment: 'Ring twice.' })
      .expect(200);
    await eventually(
      async () =>
        (
          await service.db.query(
            'SELECT 1 FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1',
            [endpointId],
          )
        ).rowCount! >= 2,
      () => 'No attempt was recorded',
    );
    ({ browser, page, cspViolations } = await openConsoleBrowser());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await receiver?.close();
  });

  it('filters the delivery log by status, event type and event id, with the keyboard alone', async () => {
    await page.goto(`${service.url}/console/#/companies/${companyId}/webhooks`);
    await signIn(page, admin);
    await press(`Delivery log of endpoint ${endpointId}`);
    await page.getByRole('heading', { name: `Delivery log of endpoint ${endpointId}` }).waitFor();
    const rows = page.getByRole('region', { name: 'Deliveries' }).locator('tbody tr');
    await eventually(
      async () => (await rows.count()) === 2,
      () => 'The log does not show both deliveries',
    );

    // Status: pending; Tab; event type: order.comment (a select answers the letters typed); Tab to the
    // event id, whose Enter submits the filter (a select's does not).
    await page.getByLabel('Status').focus();
    await page.keyboard.type('pending');
    await page.keyboard.press('Tab');
    await page.keyboard.type('order.c');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    let shown = '';
    await eventually(
      async () => {
        shown = `${await page.getByLabel('Status').inputValue()} ${await page.getByLabel('Event type').inputValue()}: ${await page.locator('main').innerText()}`;
        return (await rows.count()) === 1 && (await rows.first().innerText()).includes('order.comment');
      },
      () => `The filter did not leave the comment delivery alone: ${shown}`,
    );
    const commentEventId = (await rows.first().locator('code').innerText()).trim();
    await expectAccessible(page, 'delivery-log-filtered');
    await shot(page, 'delivery-log-filtered');

    // An event id the API refuses: its message, as it comes.
    await page.getByLabel('Event id').focus();
    await page.keyboard.type('1042');
    await page.keyboard.press('Enter');
    await page
      .getByRole('alert')
      .getByText('The event id must be evt_ and a number, as in webhook-id.')
      .waitFor();

    // The event a partner names, by its webhook-id, under any status and type.
    await page.getByLabel('Status').focus();
    await page.keyboard.type('Any');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Any');
    await page.getByLabel('Event id').fill('');
    await page.getByLabel('Event id').focus();
    await page.keyboard.type(commentEventId);
    await page.keyboard.press('Enter');
    await eventually(
      async () =>
        (await page.getByRole('alert').count()) === 0 &&
        (await rows.count()) === 1 &&
        (await rows.first().innerText()).includes(commentEventId),
      () => 'The event id did not find its delivery',
    );
    expect(cspViolations).toEqual([]);
  });

  it('opens a delivery: the body sent, each attempt with its headers and the receiver’s answer, and retries it', async () => {
    const deliveryId = (
      await service.db.query(
        `SELECT d.id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
         WHERE d.endpoint_id = $1 AND e.type = 'order.comment'`,
        [endpointId],
      )
    ).rows[0].id as string;
    // Given up, as after 24 hours, so that no automatic attempt races the hand retry below; the attempt in
    // flight, if any, is recorded meanwhile.
    await service.db.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE id = $1`, [deliveryId]);
    await eventually(
      async () =>
        (
          await service.db.query(
            'SELECT 1 FROM webhook_deliveries WHERE id = $1 AND (in_flight_until IS NULL OR in_flight_until < now())',
            [deliveryId],
          )
        ).rowCount === 1,
      () => 'An attempt stays in flight',
    );
    await press(`Details of delivery ${deliveryId}`, 'link');
    await page.getByRole('heading', { name: `Delivery ${deliveryId} of endpoint ${endpointId}` }).waitFor();
    await expectTitle(page, `Delivery ${deliveryId} of endpoint ${endpointId}`);
    expect(page.url()).toContain(`#/webhooks/${endpointId}/deliveries/${deliveryId}`);

    const sent = receiver.received.find((entry) => entry.body.includes('order.comment'))!;
    expect(await page.getByLabel('Body sent').innerText()).toBe(sent.body);
    const first = page.getByRole('region', { name: 'Attempt 1' });
    await first.getByRole('heading', { name: /^Attempt 1: / }).waitFor();
    expect(await first.innerText()).toContain(`webhook-signature`);
    expect(await first.innerText()).toContain(String(sent.headers['webhook-id']));
    const answered = page.getByRole('heading', { name: /^Attempt \d+: HTTP 503$/ }).first();
    const number = /^Attempt (\d+)/.exec(await answered.innerText())![1];
    expect(await page.getByLabel(`Body received at attempt ${number}`).innerText()).toBe('ok');
    await expectAccessible(page, 'delivery');
    // Its summary, the body sent and the first attempt: each attempt's headers make the page long.
    await shot(page, 'delivery', { height: 1200 });

    receiverFails = false;
    const attempts = await page.getByRole('heading', { name: /^Attempt \d+:/ }).count();
    await press('Retry now');
    await page.getByRole('heading', { name: `Attempt ${attempts + 1}: HTTP 200` }).waitFor();
    expect(await page.locator('.status').innerText()).toBe('succeeded');
    expect(await page.getByRole('button', { name: 'Retry now' }).count()).toBe(0);
    await expectAccessible(page, 'delivery-retried');

    await press(`Webhooks of company ${companyId}`, 'link');
    // The company's screen, headed with its name (known from the visit before, or once it loads).
    await page.getByRole('heading', { name: 'Webhooks of Pizzeria Napoli (SK)' }).waitFor();
    expect(new URL(page.url()).hash).toBe(`#/companies/${companyId}/webhooks`);
    expect(cspViolations).toEqual([]);
  });

  it("shows the API's 404 for another endpoint's delivery", async () => {
    const deliveryId = (
      await service.db.query('SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 LIMIT 1', [endpointId])
    ).rows[0].id as string;
    await inPage(page, `location.hash = '#/webhooks/${otherEndpointId}/deliveries/${deliveryId}'`);
    await page
      .getByRole('alert')
      .getByText('Delivery not found: this endpoint has no delivery with this id.')
      .waitFor();
    await expectTitle(page, `Delivery ${deliveryId} of endpoint ${otherEndpointId}`);
    await expectAccessible(page, 'delivery-not-found');
  });

  it("offers no Retry for a deleted endpoint's delivery: the API's 404, as it comes", async () => {
    const deliveryId = (
      await service.db.query(
        `UPDATE webhook_deliveries SET status = 'failed'
         WHERE id = (SELECT min(id) FROM webhook_deliveries WHERE endpoint_id = $1) RETURNING id`,
        [endpointId],
      )
    ).rows[0].id as string;
    await inPage(page, `location.hash = '#/webhooks/${endpointId}/deliveries/${deliveryId}'`);
    await page.getByRole('button', { name: 'Retry now' }).waitFor();

    await api(service).delete(`/api/v2/admin/webhooks/${endpointId}`).set(as(admin)).expect(200);
    await page.reload();
    await page.getByRole('alert').getByText('Webhook not found.').waitFor();
    expect(await page.getByRole('button', { name: 'Retry now' }).count()).toBe(0);
    await expectTitle(page, `Delivery ${deliveryId} of endpoint ${endpointId}`);
    expect(cspViolations).toEqual([]);
  });
});
