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
import { eventually } from '../harness/eventually';
import { api, as, type RunningService, startService } from '../harness/service';

// Each step drives a real browser: allow for a busy machine.
jest.setTimeout(120_000);

/**
 * Names instead of bare ids and a filter on each list that grows (CONTRACT §6, admin console), in a real browser
 * against the compiled service: each filter used with the keyboard alone, each screen checked with axe.
 */
describe('the admin console: names and filters', () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let admin: string;
  const company: Record<'pizza' | 'grill' | 'alpha', number> = { pizza: 0, grill: 0, alpha: 0 };
  const token: Record<'alice' | 'bob', { id: number; prefix: string }> = {
    alice: { id: 0, prefix: '' },
    bob: { id: 0, prefix: '' },
  };
  let cspViolations: string[];

  const post = (path: string, body: object) =>
    api(service).post(`/api/v2/admin${path}`).set(as(admin)).send(body);
  const focusedLabel = () =>
    inPage<string>(
      page,
      'document.activeElement.labels?.[0]?.textContent ?? document.activeElement.textContent',
    );
  /** The first column of the list's rows, once it shows exactly `expected`. */
  const expectColumn = (column: number, expected: string[]) =>
    eventually(
      async () =>
        JSON.stringify(await page.locator(`tbody tr td:nth-child(${column})`).allInnerTexts()) ===
        JSON.stringify(expected),
      () => `The list's column ${column} does not show ${JSON.stringify(expected)}`,
    );

  beforeAll(async () => {
    service = await startService({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    admin = await issueAdminToken(service.databaseUrl!);
    company.pizza = (await post('/companies', { name: 'Zebra Pizza', site: 'SK' }).expect(201)).body.id;
    company.grill = (await post('/companies', { name: 'Zebra Grill', site: 'CZ' }).expect(201)).body.id;
    company.alpha = (await post('/companies', { name: 'Alpha Bistro', site: 'SK' }).expect(201)).body.id;
    for (const name of ['alice', 'bob'] as const) {
      const issued = await post('/tokens', { role: 'partner', user_name: name, company_id: company.pizza });
      token[name] = { id: issued.body.id, prefix: issued.body.prefix };
    }
    await api(service).delete(`/api/v2/admin/tokens/${token.bob.id}`).set(as(admin)).expect(200);
    await post('/products', { name: 'Widget blue' }).expect(201);
    const red = await post('/products', { name: 'Widget red' }).expect(201);
    await api(service)
      .patch(`/api/v2/admin/products/${red.body.id}`)
      .set(as(admin))
      .send({ active: false })
      .expect(200);
    await post('/products', { name: 'Gadget' }).expect(201);
    for (const path of ['/orders', '/stock']) {
      await post('/webhooks', { company_id: company.pizza, url: `http://127.0.0.1:9${path}` }).expect(201);
    }
    ({ browser, page, cspViolations } = await openConsoleBrowser());
    await page.goto(`${service.url}/console/#/companies`);
    await signIn(page, admin);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('filters the companies by name and market with the keyboard alone, and shows the API’s refusal', async () => {
    await expectColumn(2, ['Zebra Pizza', 'Zebra Grill', 'Alpha Bistro']);
    await expectTitle(page, 'Companies');
    await page.getByLabel('Search companies').focus();
    await page.keyboard.type('zEBRA');
    await page.keyboard.press('Enter');
    await expectColumn(2, ['Zebra Pizza', 'Zebra Grill']);
    await page.keyboard.press('Tab');
    await tabTo(page, 'Market', async () => (await focusedLabel()).trim(), 6);
    await page.keyboard.type('cz');
    await page.keyboard.press('Enter');
    await expectColumn(2, ['Zebra Grill']);
    await expectAccessible(page, 'companies-filtered');
    await shot(page, 'companies-filtered');

    await page.keyboard.type('ech');
    await page.keyboard.press('Enter');
    await page
      .getByRole('alert')
      .getByText('site: The site filter must be a two-letter market code such as SK.')
      .waitFor();
    await tabTo(page, 'Apply filter', async () => (await focusedLabel()).trim(), 6);
    await page.keyboard.press('Tab');
    expect((await focusedLabel()).trim()).toBe('Clear');
    await page.keyboard.press('Enter');
    await expectColumn(2, ['Zebra Pizza', 'Zebra Grill', 'Alpha Bistro']);
    expect(await page.getByLabel('Market').inputValue()).toBe('');
  });

  it('names the company on its tokens screen and filters its tokens by user and state', async () => {
    await page.getByRole('link', { name: 'Tokens of Zebra Pizza' }).click();
    await page.getByRole('heading', { name: 'Tokens of Zebra Pizza (SK)' }).waitFor();
    await expectTitle(page, 'Tokens of Zebra Pizza (SK)');
    await expectColumn(3, ['alice', 'bob']);
    await page.getByLabel('Search users').focus();
    await page.keyboard.type('BO');
    await page.keyboard.press('Enter');
    await expectColumn(3, ['bob']);
    await page.getByLabel('Search users').fill('');
    await page.getByLabel('Search users').focus();
    await page.keyboard.press('Tab');
    await tabTo(page, 'State', async () => (await focusedLabel()).trim(), 6);
    // The arrow keys move through a select's options, as in any select.
    await page.keyboard.press('ArrowDown');
    expect(await page.getByLabel('State').inputValue()).toBe('active');
    await tabTo(page, 'Apply filter', async () => (await focusedLabel()).trim(), 6);
    await page.keyboard.press('Enter');
    await expectColumn(3, ['alice']);
    await expectAccessible(page, 'tokens-filtered');
    await shot(page, 'tokens-filtered');
  });

  it('names the company on its webhooks screen and filters its endpoints by URL', async () => {
    await page.goto(`${service.url}/console/#/companies/${company.pizza}/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks of Zebra Pizza (SK)' }).waitFor();
    await expectTitle(page, 'Webhooks of Zebra Pizza (SK)');
    await expectColumn(2, ['http://127.0.0.1:9/orders', 'http://127.0.0.1:9/stock']);
    await page.getByLabel('Search endpoints').focus();
    await page.keyboard.type('STOCK');
    await page.keyboard.press('Enter');
    await expectColumn(2, ['http://127.0.0.1:9/stock']);
    await expectAccessible(page, 'webhooks-filtered');
    await shot(page, 'webhooks-filtered');
  });

  it('filters the products by name and status with the keyboard alone', async () => {
    await page.getByRole('link', { name: 'Products' }).click();
    await page.getByRole('heading', { name: 'Products' }).waitFor();
    await expectTitle(page, 'Products');
    await expectColumn(2, ['Widget blue', 'Widget red', 'Gadget']);
    await page.getByLabel('Search products').focus();
    await page.keyboard.type('widget');
    await page.keyboard.press('Tab');
    await tabTo(page, 'Status', async () => (await focusedLabel()).trim(), 6);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await page.getByLabel('Status').inputValue()).toBe('false');
    await tabTo(page, 'Apply filter', async () => (await focusedLabel()).trim(), 6);
    await page.keyboard.press('Enter');
    await expectColumn(2, ['Widget red']);
    await expectAccessible(page, 'products-filtered');
    await shot(page, 'products-filtered');
  });

  it('filters the audit trail by a company found by name and one of its tokens, naming both', async () => {
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
    await expectTitle(page, 'Audit trail');
    await page.getByLabel('Search companies').focus();
    await page.keyboard.type('zebra');
    await page.keyboard.press('Enter');
    const companyOptions = () =>
      page.getByLabel('Company', { exact: true }).locator('option').allInnerTexts();
    await eventually(
      async () => (await companyOptions()).length === 3,
      () => 'The companies found are not offered',
    );
    expect(await companyOptions()).toEqual([
      'Every company',
      `Zebra Pizza (SK) · ${company.pizza}`,
      `Zebra Grill (CZ) · ${company.grill}`,
    ]);
    await page.getByLabel('Company', { exact: true }).focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.getByLabel('Company', { exact: true }).inputValue()).toBe(String(company.pizza));
    const tokenOptions = () => page.getByLabel('Token', { exact: true }).locator('option').allInnerTexts();
    await eventually(
      async () => (await tokenOptions()).length === 3,
      () => "The chosen company's tokens are not offered",
    );
    expect(await tokenOptions()).toEqual([
      'Every token',
      `alice · token ${token.alice.id} (${token.alice.prefix})`,
      `bob · token ${token.bob.id} (${token.bob.prefix})`,
    ]);
    await tabTo(page, 'Apply filter', async () => (await focusedLabel()).trim(), 6);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Audit trail of Zebra Pizza (SK)' }).waitFor();
    await expectTitle(page, 'Audit trail of Zebra Pizza (SK)');
    expect(page.url()).toContain(`#/audit?company_id=${company.pizza}`);
    await expectColumn(4, [
      'webhook.created',
      'webhook.created',
      'token.revoked',
      'token.issued',
      'token.issued',
      'company.created',
    ]);
    // The company's name and the user's name of the token that made each change, beside their ids.
    expect(new Set(await page.locator('tbody tr td:nth-child(3)').allInnerTexts())).toEqual(
      new Set([`Zebra Pizza (${company.pizza})`]),
    );
    expect(await page.locator('tbody tr td:nth-child(2)').first().innerText()).toMatch(
      /^spec-admin \(token \d+\)$/,
    );
    await expectAccessible(page, 'audit-filtered');
    expect(cspViolations).toEqual([]);
  });
});
