import type { Browser, Page } from 'playwright-core';
import { issueAdminToken } from '../harness/cli';
import {
  expectAccessible,
  expectTitle,
  inPage,
  openConsoleBrowser,
  shot,
  signIn,
  tabTo,
} from '../harness/console-page';
import { Fixtures, orderBody, type Partner } from '../harness/factories';
import { eventually } from '../harness/eventually';
import { api, as, type RunningService, startService } from '../harness/service';
import {
  FAST_DISPATCH,
  hasValidSignature,
  parseEvent,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../harness/webhook-receiver';

// Each step drives a real browser: allow for a busy machine.
jest.setTimeout(120_000);

/**
 * The endpoint settings screen (`#/webhooks/{id}`, CONTRACT §6) in a real browser against the compiled service:
 * reached from the webhooks screen, event types, disable and enable, and a rotation with the new secret shown
 * once, all with the keyboard alone, checked with axe and under the console's CSP.
 */
describe('the console: endpoint settings', () => {
  let service: RunningService;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let admin: string;
  let partner: Partner;
  let endpoint: { id: number; secret: string };
  let productId: number;
  let cspViolations: string[];

  /** The focused control as a person hears it: its aria-label, its label, else its text. */
  const focused = () =>
    inPage<string>(
      page,
      `(() => { const e = document.activeElement; return (e.getAttribute('aria-label') || e.labels?.[0]?.textContent || e.textContent || '').replace(/\\s+/g, ' ').trim(); })()`,
    );
  const settings = async () =>
    (await api(service).get(`/api/v2/admin/webhooks/${endpoint.id}`).set(as(admin)).expect(200)).body as {
      event_types: string[] | null;
      enabled: boolean;
    };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    service = await startService({ env: FAST_DISPATCH });
    admin = await issueAdminToken(service.databaseUrl!);
    const fixtures = new Fixtures(service.url, admin);
    partner = await fixtures.partner();
    productId = (await fixtures.product()).id;
    endpoint = (
      await api(service)
        .post('/api/v2/admin/webhooks')
        .set(as(admin))
        .send({ company_id: partner.companyId, url: `${receiver.url}/console` })
        .expect(201)
    ).body;
    ({ browser, page, cspViolations } = await openConsoleBrowser());
    await page.goto(`${service.url}/console/`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await receiver?.close();
  });

  it('opens the settings from the webhooks screen, with its own title and no serious axe finding', async () => {
    await page.goto(`${service.url}/console/#/companies/${partner.companyId}/webhooks`);
    await page.getByRole('region', { name: 'Endpoints' }).waitFor();
    await tabTo(page, `Settings of endpoint ${endpoint.id}`, focused);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: `Settings of webhook endpoint ${endpoint.id}` }).waitFor();
    expect(page.url()).toMatch(new RegExp(`#/webhooks/${endpoint.id}$`));
    await expectTitle(page, `Settings of webhook endpoint ${endpoint.id}`);
    expect(await page.locator('.facts').innerText()).toContain(`${receiver.url}/console`);
    await expectAccessible(page, 'endpoint settings');
  });

  it('chooses the event types with the keyboard', async () => {
    await tabTo(page, 'Every event type, those added later too', focused);
    await page.keyboard.press('ArrowDown');
    await tabTo(page, 'order.comment', focused);
    await page.keyboard.press('Space');
    await tabTo(page, 'Save event types', focused);
    await page.keyboard.press('Enter');
    await page.getByText('Event types saved.').waitFor();
    expect((await settings()).event_types).toEqual(['order.comment']);
  });

  it('disables and enables the endpoint with the keyboard', async () => {
    await tabTo(page, 'Disable endpoint', focused);
    await page.keyboard.press('Enter');
    await page.getByText(/^Disabled since .*: deliveries wait, paused$/).waitFor();
    expect((await settings()).enabled).toBe(false);
    await shot(page, 'endpoint-settings');
    await tabTo(page, 'Enable endpoint', focused);
    await page.keyboard.press('Enter');
    await page.getByText('Enabled', { exact: true }).waitFor();
    expect((await settings()).enabled).toBe(true);
  });

  it('shows the API error as it comes, then rotates the secret, the new one shown once, both signing', async () => {
    await tabTo(page, 'Old secret signs until (optional)', focused);
    await page.keyboard.type('2030-01-01');
    await tabTo(page, 'Rotate secret', focused);
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('Bad request.');
    expect(await alert.innerText()).toContain(
      'previous_secret_expires_at: The previous secret can sign for at most 7 days.',
    );

    await tabTo(page, 'Old secret signs until (optional)', focused);
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await tabTo(page, 'Rotate secret', focused);
    await page.keyboard.press('Enter');
    const heading = page.getByRole('heading', { name: `New signing secret of endpoint ${endpoint.id}` });
    await heading.waitFor();
    // The screen moves focus to the new secret's heading once it has rendered it.
    await eventually(
      async () => (await focused()) === `New signing secret of endpoint ${endpoint.id}`,
      () => "focus never reached the new secret's heading",
    );
    const secret = await page.locator('.secret-value').innerText();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(endpoint.secret);
    expect(await page.locator('.facts').innerText()).not.toContain('no overlap');

    // A comment (the one type chosen above) reaches the receiver signed with both secrets.
    const placed = await api(service).post('/api/v2/order').set(as(partner.token)).send(orderBody(productId));
    const orderId = Number(placed.body.orders[0].order_id);
    await api(service)
      .post(`/api/v2/order/${orderId}/comment`)
      .set(as(partner.token))
      .send({ partner_comment: 'Leave it at the door.' })
      .expect(200);
    await receiver.waitFor((received) =>
      received.some((webhook) => parseEvent(webhook).data.order_id === orderId),
    );
    const [delivered] = receiver.at('/console');
    expect(parseEvent(delivered).type).toBe('order.comment');
    expect(hasValidSignature(delivered, secret)).toBe(true);
    expect(hasValidSignature(delivered, endpoint.secret)).toBe(true);
    await shot(page, 'endpoint-rotated');

    await tabTo(page, 'I have stored it', focused);
    await page.keyboard.press('Enter');
    expect(await page.locator('.secret-value').count()).toBe(0);
    expect(await page.getByText(secret).count()).toBe(0);
    expect(cspViolations).toEqual([]);
  });
});
