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
import {
  FAST_DISPATCH,
  hasValidSignature,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../harness/webhook-receiver';

const TOKEN_KEY = 'restaurant-orders.admin-token';

// Each step drives a real browser: allow for a busy machine.
jest.setTimeout(120_000);

/**
 * The admin console (/console) in a real browser against the compiled service on a real PostgreSQL: every
 * screen used as an administrator would, with the keyboard where it matters, checked with axe.
 */
describe('the admin console in a browser (CONTRACT §6)', () => {
  let service: RunningService;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let admin: string;
  let receiverFails = false;
  let companyId: number;
  let otherCompanyId: number;
  let cspViolations: string[];
  let notFound: string[];

  const text = (selector: string) => page.locator(selector).innerText();
  const storedToken = () => inPage<string | null>(page, `sessionStorage.getItem('${TOKEN_KEY}')`);
  /** The focused element as a screen reader names it (its label, else its text). */
  const focused = () =>
    inPage<string>(
      page,
      "document.activeElement.getAttribute('aria-label') || document.activeElement.textContent.trim()",
    );
  /** Headings in document order never skip a level (h1, then h2, not h3). */
  async function expectHeadingsInOrder(): Promise<void> {
    const levels = await inPage<number[]>(
      page,
      "[...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].map((h) => Number(h.tagName[1]))",
    );
    expect(levels[0]).toBe(1);
    levels.slice(1).forEach((level, index) => expect(level).toBeLessThanOrEqual(levels[index] + 1));
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver((incoming) =>
      incoming.path === '/gone' ? 410 : receiverFails ? 503 : 200,
    );
    service = await startService({ env: FAST_DISPATCH });
    admin = await issueAdminToken(service.databaseUrl!);
    ({ browser, page, cspViolations, notFound } = await openConsoleBrowser(service.url));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await receiver?.close();
  });

  it('is served under a strict CSP, and refuses a wrong token, telling so and keeping nothing', async () => {
    const response = await page.goto(`${service.url}/console/`);
    expect(response?.headers()['content-security-policy']).toBe(
      "default-src 'none';script-src 'self';style-src 'self';img-src 'self';connect-src 'self';" +
        "base-uri 'none';form-action 'self';frame-ancestors 'none'",
    );
    await page.getByRole('heading', { name: 'Admin console' }).waitFor();
    expect(await page.getByText('Loading the console').count()).toBe(0);
    await page.keyboard.press('Tab');
    expect(await inPage<string>(page, 'document.activeElement.id')).toBe(
      await page.getByLabel('Admin token').getAttribute('id'),
    );
    await page.keyboard.type('roa_not-a-real-token');
    await page.keyboard.press('Enter');
    // The API's own message as it comes, the console's sentence beside it.
    await page
      .getByRole('alert')
      .getByText('This token was refused: it is wrong, revoked or expired.')
      .waitFor();
    expect(await page.getByRole('alert').locator('p').allInnerTexts()).toEqual([
      'Unauthenticated.',
      'This token was refused: it is wrong, revoked or expired.',
    ]);
    expect(await storedToken()).toBeNull();
    await expectTitle(page, 'Sign in');
    expect(
      await inPage<string>(
        page,
        "fetch(document.querySelector('link[rel=icon]').href).then((r) => `${r.status} ${r.headers.get('content-type')}`)",
      ),
    ).toMatch(/^200 image\/svg\+xml/);
    await expectAccessible(page, 'sign-in');
    await shot(page, 'sign-in');
  });

  it('signs in with an admin token, kept in sessionStorage only, and creates a company', async () => {
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
    expect(await storedToken()).toBe(admin);
    expect(await inPage<string>(page, 'document.cookie')).toBe('');
    expect(page.url()).not.toContain(admin);
    await page.getByText('No companies yet: create the first one above.').waitFor();
    await expectTitle(page, 'Companies');

    await page.getByLabel('Name').fill('Bistro Console');
    await page.getByLabel('Site').fill('sk');
    await page.getByRole('button', { name: 'Create company' }).click();
    await page.getByRole('cell', { name: 'Bistro Console', exact: true }).waitFor();
    const stored = await service.db.query(`SELECT id, site FROM companies WHERE name = 'Bistro Console'`);
    expect(stored.rows[0].site).toBe('SK');
    companyId = stored.rows[0].id as number;

    await page.getByLabel('Site').fill('Slovakia');
    await page.getByLabel('Name').fill('Bad Site');
    await page.getByRole('button', { name: 'Create company' }).click();
    await page.getByText('site: The site must be a two-letter market code such as SK.').waitFor();
    await expectAccessible(page, 'companies');
    await shot(page, 'companies');
  });

  it('issues a partner token shown once with a copy button, which works on the partner API until revoked', async () => {
    await page.getByRole('link', { name: 'Tokens of Bistro Console' }).click();
    await page.getByRole('heading', { name: 'Tokens of Bistro Console (SK)' }).waitFor();
    await page.getByText('This company has no tokens yet.').waitFor();
    await expectTitle(page, 'Tokens of Bistro Console (SK)');
    await page.getByLabel('User name').fill('anna');
    await page.getByRole('button', { name: 'Issue token' }).click();
    await page.getByText('it is shown this once and cannot be shown again').waitFor();
    // The panel names whom and which company the token is for, and takes the focus: it is announced.
    const panelTitle = /^Token \d+ for anna of Bistro Console \(SK\)$/;
    await page.getByRole('heading', { name: panelTitle }).waitFor();
    await eventually(
      async () => panelTitle.test(await focused()),
      () => 'The new secret panel does not have the focus',
    );
    await expectHeadingsInOrder();
    const secret = await text('.secret-value');
    expect(secret).toMatch(/^roa_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await inPage<string>(page, 'navigator.clipboard.readText()')).toBe(secret);
    await expectAccessible(page, 'token-issued');
    await shot(page, 'token-issued');

    await api(service).get('/api/v2/product').set(as(secret)).expect(200);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.locator('.secret-value').count()).toBe(0);
    await page.getByRole('cell', { name: 'anna', exact: true }).waitFor();

    const tokenId = (await service.db.query(`SELECT id FROM api_tokens WHERE user_name = 'anna'`)).rows[0]
      .id as number;
    const question = page.getByText(`Revoke token ${tokenId} of anna? It stops working at once.`);
    await page.getByRole('button', { name: `Revoke token ${tokenId}` }).click();
    await question.waitFor();
    // A destructive question opens on its harmless answer; Escape closes it, focus back on its button.
    expect(await focused()).toBe('Cancel');
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    expect(await focused()).toBe(`Revoke token ${tokenId}`);
    await page.getByRole('button', { name: 'Cancel' }).waitFor({ state: 'detached' });
    await api(service).get('/api/v2/product').set(as(secret)).expect(200);
    await page.keyboard.press('Enter');
    await question.waitFor();
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('Yes, revoke');
    await page.keyboard.press('Enter');
    await page.getByRole('cell', { name: 'Revoked', exact: true }).waitFor();
    // The button went with the revocation: focus is on the list, not at the top of the page.
    await eventually(
      async () => (await focused()) === 'Tokens',
      () => 'Focus did not land on the token list',
    );
    await api(service).get('/api/v2/product').set(as(secret)).expect(401, { message: 'Unauthenticated.' });
    await expectAccessible(page, 'tokens');
    await shot(page, 'tokens');
  });

  it('starts a per-company screen empty when the company changes: no secret, form error or input of another', async () => {
    otherCompanyId = (
      await api(service)
        .post('/api/v2/admin/companies')
        .set(as(admin))
        .send({ name: 'Bistro Other', site: 'CZ' })
        .expect(201)
    ).body.id as number;
    await page.getByLabel('User name').fill('ben');
    await page.getByRole('button', { name: 'Issue token' }).click();
    await page.locator('.secret-value').waitFor();

    // The address bar (a bookmark) straight to the other company.
    await inPage(page, `location.hash = '#/companies/${otherCompanyId}/tokens'`);
    await page.getByRole('heading', { name: 'Tokens of Bistro Other (CZ)' }).waitFor();
    expect(await page.locator('.secret-value').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Copy' }).count()).toBe(0);
    await expectTitle(page, 'Tokens of Bistro Other (CZ)');
    await page.getByLabel('User name').fill('cleo');
    await page.getByLabel('Expires at (optional)').fill('tomorrow');
    await page.getByRole('button', { name: 'Issue token' }).click();
    await page.locator('.error').waitFor();

    // Back and Forward.
    await page.goBack();
    await page.getByRole('heading', { name: 'Tokens of Bistro Console (SK)' }).waitFor();
    expect(await page.locator('.secret-value, .error').count()).toBe(0);
    expect(await page.getByLabel('User name').inputValue()).toBe('');
    await page.goForward();
    await page.getByRole('heading', { name: 'Tokens of Bistro Other (CZ)' }).waitFor();
    expect(await page.locator('.secret-value, .error').count()).toBe(0);
    expect(await page.getByLabel('Expires at (optional)').inputValue()).toBe('');
  });

  it('lists products with inactive ones, creates, renames, adds a variation, deactivates and reactivates', async () => {
    await page.getByRole('link', { name: 'Products' }).click();
    await page.getByText('No products yet: create the first one above.').waitFor();
    await expectTitle(page, 'Products');
    await page.getByLabel('Product name').fill('POS terminal');
    await page.getByLabel('Variations (optional)').fill('Black, White');
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByRole('cell', { name: 'Black, White', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Rename POS terminal' }).click();
    await page.getByLabel('New name').fill('POS terminal S2');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('cell', { name: 'POS terminal S2', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Add a variation to POS terminal S2' }).click();
    await page.getByLabel('Variation name').fill('Red');
    await page.getByRole('button', { name: 'Add variation' }).click();
    await page.getByRole('cell', { name: 'Black, White, Red', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Deactivate POS terminal S2' }).click();
    await page.getByRole('cell', { name: 'Inactive', exact: true }).waitFor();
    const stored = await service.db.query(`SELECT id, active FROM products WHERE name = 'POS terminal S2'`);
    expect(stored.rows[0].active).toBe(false);
    await expectAccessible(page, 'products');
    await shot(page, 'products');
    await page.getByRole('button', { name: 'Reactivate POS terminal S2' }).click();
    await page.getByRole('cell', { name: 'Active', exact: true }).waitFor();
    expect(
      (await service.db.query('SELECT active FROM products WHERE id = $1', [stored.rows[0].id])).rows[0]
        .active,
    ).toBe(true);
  });

  it('registers a webhook with its secret shown once, shows deliveries, and retries a failed one', async () => {
    const fixtures = new Fixtures(service.url, admin);
    const partner = await fixtures.partnerOf(companyId, 'SK', 'marek');
    const variation = (
      await service.db.query(`SELECT product_id, id FROM product_variations ORDER BY id LIMIT 1`)
    ).rows[0] as { product_id: number; id: number };
    const order = () => orderBody(variation.product_id, { product_variation_id: variation.id });
    await page.getByRole('link', { name: 'Companies' }).click();
    await page.getByRole('link', { name: 'Webhooks of Bistro Console' }).click();
    await page.getByText('This company has no webhook endpoints.').waitFor();
    await expectTitle(page, 'Webhooks of Bistro Console (SK)');
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/orders`);
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    const secret = await text('.secret-value');
    expect(secret).toMatch(/^whsec_/);
    await expectAccessible(page, 'webhook-registered');
    await shot(page, 'webhook-registered');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    const endpointId = (await service.db.query(`SELECT id FROM webhook_endpoints`)).rows[0].id as number;

    await api(service).post('/api/v2/order').set(as(partner.token)).send(order()).expect(201);
    await receiver.waitFor((received) => received.length === 1);
    await page.getByRole('button', { name: `Delivery log of endpoint ${endpointId}` }).click();
    await page.locator('.status-succeeded').waitFor();
    await expectHeadingsInOrder();
    // Retry is offered exactly where the API accepts it: not for a delivery that succeeded.
    const retryButtons = page.getByRole('button', { name: /^Retry delivery / });
    expect(await retryButtons.count()).toBe(0);

    receiverFails = true;
    await api(service).post('/api/v2/order').set(as(partner.token)).send(order()).expect(201);
    await receiver.waitFor((received) => received.length >= 2);
    const pendingId = (await service.db.query(`SELECT id FROM webhook_deliveries WHERE status = 'pending'`))
      .rows[0].id as string;
    await page.getByRole('button', { name: 'Refresh the log' }).click();
    await page.locator('.status-pending').waitFor();
    // A pending delivery can be retried by hand at once.
    expect(await retryButtons.allInnerTexts()).toEqual(['Retry']);
    await page.getByRole('button', { name: `Retry delivery ${pendingId}` }).waitFor();
    // The dispatcher retries for 24 hours; make the event that old, so its next failure is the last.
    await service.db.query(
      `UPDATE webhook_deliveries SET created_at = now() - interval '25 hours' WHERE status = 'pending'`,
    );
    await eventually(
      async () =>
        (await service.db.query(`SELECT 1 FROM webhook_deliveries WHERE status = 'failed'`)).rowCount === 1,
      () => 'The delivery was not given up',
    );
    await page.getByRole('button', { name: 'Refresh the log' }).click();
    await page.locator('.status-failed').waitFor();
    await page.getByText('503 · ', { exact: false }).first().waitFor();
    const failed = (
      await service.db.query(`SELECT id, event_id FROM webhook_deliveries WHERE status = 'failed'`)
    ).rows[0] as { id: string; event_id: string };
    const failedId = failed.id;
    // Its webhook-id, evt_ and its event's id: delivery is at least once, so the receiver's n-th message may be
    // an earlier event sent again.
    const failedWebhookId = `evt_${failed.event_id}`;
    expect(receiver.received.map((message) => message.headers['webhook-id'])).toContain(failedWebhookId);

    receiverFails = false;
    await page.getByRole('button', { name: `Retry delivery ${failedId}` }).click();
    await eventually(
      async () => (await page.locator('.status-failed').count()) === 0,
      () => 'The retried delivery is still shown failed',
    );
    expect(await page.locator('.status-succeeded').count()).toBe(2);
    const retried = receiver.received.at(-1)!;
    expect(retried.headers['webhook-id']).toBe(failedWebhookId);
    expect(hasValidSignature(retried, secret)).toBe(true);
    expect(await retryButtons.count()).toBe(0);
    await expectAccessible(page, 'webhooks');
    await shot(page, 'webhooks');

    // Another company's screen, with this log open: it starts without it. Its endpoint answers 410 Gone, so
    // it stopped: its failed delivery is not offered a retry (the API refuses one).
    const otherPartner = await fixtures.partnerOf(otherCompanyId);
    const gone = (
      await api(service)
        .post('/api/v2/admin/webhooks')
        .set(as(admin))
        .send({ company_id: otherCompanyId, url: `${receiver.url}/gone` })
        .expect(201)
    ).body.id as number;
    await api(service).post('/api/v2/order').set(as(otherPartner.token)).send(order()).expect(201);
    await eventually(
      async () =>
        (await service.db.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 AND NOT active', [gone]))
          .rowCount === 1,
      () => 'The endpoint answering 410 was not stopped',
    );
    await inPage(page, `location.hash = '#/companies/${otherCompanyId}/webhooks'`);
    await page.getByRole('heading', { name: 'Webhooks of Bistro Other (CZ)' }).waitFor();
    expect(await page.getByRole('heading', { name: /^Delivery log/ }).count()).toBe(0);
    await page.getByRole('button', { name: `Delivery log of endpoint ${gone}` }).click();
    await page.locator('.status-failed').waitFor();
    expect(await retryButtons.count()).toBe(0);

    // Deleting the only endpoint empties the list: focus goes to the content, not to the top of the page.
    await page.getByRole('button', { name: `Delete endpoint ${gone}` }).click();
    expect(await focused()).toBe('Cancel');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.getByText('This company has no webhook endpoints.').waitFor();
    await eventually(
      async () => (await inPage<string>(page, 'document.activeElement.id')) === 'content',
      () => 'Focus did not land on the content',
    );
  });

  it('reads the audit trail, newest first, filtered by company and by token', async () => {
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    await expectTitle(page, 'Audit trail');
    await page
      .getByLabel('Company', { exact: true })
      .selectOption({ label: `Bistro Console (SK) · ${companyId}` });
    await page.getByRole('button', { name: 'Apply filter' }).click();
    const actionsShown = () => page.locator('tbody tr td:nth-child(4)').allInnerTexts();
    // The table re-renders with the filtered page: read it once its first row is the newest filtered entry.
    await eventually(
      async () => (await actionsShown())[0] === 'webhook.delivery_retried',
      () => 'The filtered audit trail does not start with the hand retry',
    );
    const actions = await actionsShown();
    expect(actions).toEqual(
      expect.arrayContaining(['company.created', 'token.issued', 'token.revoked', 'webhook.created']),
    );
    expect(actions).not.toContain('product.created');
    expect(page.url()).toContain(`#/audit?company_id=${companyId}`);
    await expectAccessible(page, 'audit');
    await shot(page, 'audit');

    // Names beside ids: the company's, and the user's of the token that made each change.
    await page
      .getByRole('cell', { name: `Bistro Console (${companyId})` })
      .first()
      .waitFor();
    await page
      .getByRole('cell', { name: /^spec-admin \(token \d+\)$/ })
      .first()
      .waitFor();
    await expectTitle(page, 'Audit trail of Bistro Console (SK)');
    // The tokens offered are the chosen company's, by name: one that changed nothing finds nothing.
    const ben = (
      await service.db.query(
        `SELECT id, prefix FROM api_tokens WHERE user_name = 'ben' AND company_id = $1`,
        [companyId],
      )
    ).rows[0] as { id: number; prefix: string };
    await page
      .getByLabel('Token', { exact: true })
      .selectOption({ label: `ben · token ${ben.id} (${ben.prefix})` });
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.getByText('No changes recorded for this filter.').waitFor();
  });

  it('fits a 390 px wide screen, and forgets a token revoked meanwhile, saying so', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'Companies' }).click();
    await page.getByRole('cell', { name: 'Bistro Console', exact: true }).waitFor();
    expect(await inPage<number>(page, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await shot(page, 'companies-390px');

    const adminId = (await service.db.query(`SELECT id FROM api_tokens WHERE user_name = 'spec-admin'`))
      .rows[0].id as number;
    await api(service).delete(`/api/v2/admin/tokens/${adminId}`).set(as(admin)).expect(200);
    await page.getByRole('link', { name: 'Products' }).click();
    await page.getByText('The API refused your token (revoked or expired): it has been forgotten.').waitFor();
    expect(await storedToken()).toBeNull();
    expect(cspViolations).toEqual([]);
    expect(notFound).toEqual([]);
  });
});
