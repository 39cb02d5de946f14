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

// Each step drives a real browser: allow for a busy machine.
jest.setTimeout(120_000);

/**
 * The console's tokens screen with read-only and rolled tokens (CONTRACT §6), in a real browser against the
 * compiled service, with the keyboard alone, checked with axe.
 */
describe('the admin console: read-only and rolled tokens', () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let admin: string;
  let companyId: number;
  let companyName: string;
  let productId: number;
  let cspViolations: string[];

  const focused = () =>
    inPage<string>(
      page,
      "document.activeElement.getAttribute('aria-label') || document.activeElement.textContent.trim()",
    );

  beforeAll(async () => {
    service = await startService();
    admin = await issueAdminToken(service.databaseUrl!);
    const fixtures = new Fixtures(service.url, admin);
    companyId = await fixtures.company('SK', 'Trattoria Roma');
    companyName = (await service.db.query('SELECT name FROM companies WHERE id = $1', [companyId])).rows[0]
      .name as string;
    productId = (await fixtures.product()).id;
    ({ browser, page, cspViolations } = await openConsoleBrowser());
    await page.goto(`${service.url}/console/#/companies/${companyId}/tokens`);
    await signIn(page, admin);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('issues a read-only token with the keyboard alone: shown once, marked in the list, refused on writes', async () => {
    await page.getByRole('heading', { name: `Tokens of ${companyName} (SK)` }).waitFor();
    await expectTitle(page, `Tokens of ${companyName} (SK)`);
    await page.getByLabel('User name').focus();
    await page.keyboard.type('reader');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await inPage<string>(page, 'document.activeElement.type')).toBe('checkbox');
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Issue token');
    await page.keyboard.press('Enter');

    const panelTitle = new RegExp(`^Token \\d+ for reader of ${companyName} \\(SK\\) \\(read-only\\)$`);
    await page.getByRole('heading', { name: panelTitle }).waitFor();
    await eventually(
      async () => panelTitle.test(await focused()),
      () => 'The new secret panel does not have the focus',
    );
    const secret = await page.locator('.secret-value').innerText();
    await api(service).get('/api/v2/orders').set(as(secret)).expect(200);
    await api(service)
      .post('/api/v2/order')
      .set(as(secret))
      .send(orderBody(productId))
      .expect(403, { message: 'Forbidden.' });
    await expectAccessible(page, 'token-issued-read-only');

    await page.getByRole('button', { name: 'I have stored it' }).focus();
    await page.keyboard.press('Enter');
    const row = page.getByRole('row', { name: /reader/ });
    await row.getByRole('cell', { name: 'Read-only', exact: true }).waitFor();
  });

  it('rolls a token with the keyboard alone: the new secret shown once with the old one’s end, both working', async () => {
    const old = (
      await api(service)
        .post('/api/v2/admin/tokens')
        .set(as(admin))
        .send({ role: 'partner', user_name: 'roller', company_id: companyId })
        .expect(201)
    ).body as { id: number; token: string };
    await page.reload();
    const rollButton = page.getByRole('button', { name: `Roll token ${old.id}` });
    await rollButton.focus();
    await page.keyboard.press('Enter');
    const question = page.getByText(
      `Give token ${old.id} of roller a new secret? The old one keeps working for 24 hours.`,
    );
    await question.waitFor();
    expect(await focused()).toBe('Cancel');
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('Yes, roll');
    await page.keyboard.press('Enter');

    await eventually(
      async () =>
        (await service.db.query('SELECT rolled_at FROM api_tokens WHERE id = $1', [old.id])).rows[0]
          .rolled_at !== null,
      () => 'The token was not rolled',
    );
    const panelTitle = new RegExp(
      `^New secret of token ${old.id} for roller: the old one works until \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}$`,
    );
    await page.getByRole('heading', { name: panelTitle }).waitFor();
    const secret = await page.locator('.secret-value').innerText();
    expect(secret).not.toBe(old.token);
    await api(service).get('/api/v2/orders').set(as(secret)).expect(200);
    await api(service).get('/api/v2/orders').set(as(old.token)).expect(200);
    await expectAccessible(page, 'token-rolled');
    await shot(page, 'token-rolled');

    await page.getByRole('button', { name: 'I have stored it' }).focus();
    await page.keyboard.press('Enter');
    await page
      .getByRole('row', { name: /roller/ })
      .getByText(/old secret until \d{4}-\d{2}-\d{2} \d{2}:\d{2}/)
      .waitFor();
    await expectAccessible(page, 'tokens-rolled-list');
    await shot(page, 'tokens-rolled');
    expect(cspViolations).toEqual([]);
  });
});
