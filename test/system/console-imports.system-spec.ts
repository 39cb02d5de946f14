import type { Browser, Page } from 'playwright-core';
import { issueAdminToken } from '../harness/cli';
import { expectAccessible, expectTitle, openConsoleBrowser, signIn } from '../harness/console-page';
import { eventually } from '../harness/eventually';
import { Fixtures, orderBody, type Partner } from '../harness/factories';
import { api, as, type RunningService, startService } from '../harness/service';

// Each step drives a real browser: allow for a busy machine.
jest.setTimeout(120_000);

/**
 * The console's imports screens (CONTRACT §4.11: admins see every company's imports, in the API and the console)
 * in a real browser against the compiled service: a company's imports with their counts, and an import's failed
 * lines with the errors POST /order gives.
 */
describe("the admin console's imports", () => {
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let admin: string;
  let partner: Partner;
  let importId: number;
  let cspViolations: string[];

  beforeAll(async () => {
    service = await startService({ env: { IMPORT_POLL_INTERVAL_MS: '100' } });
    admin = await issueAdminToken(service.databaseUrl!);
    const fixtures = new Fixtures(service.url, admin);
    partner = await fixtures.partner();
    const productId = (await fixtures.product()).id;
    const file = [orderBody(productId), orderBody(productId, { email: 'not an address' })]
      .map((line) => JSON.stringify(line))
      .join('\n');
    const uploaded = await api(service)
      .post('/api/v2/orders/imports')
      .set(as(partner.token))
      .set('Content-Type', 'application/x-ndjson')
      .send(`${file}\n`)
      .expect(202);
    importId = uploaded.body.id as number;
    await eventually(
      async () =>
        (await api(service).get(`/api/v2/orders/imports/${importId}`).set(as(partner.token))).body.state ===
        'completed',
      () => 'the import never completed',
    );
    ({ browser, page, cspViolations } = await openConsoleBrowser());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it("lists a company's imports with their counts and opens one with its failed lines", async () => {
    const company = await api(service)
      .get(`/api/v2/admin/companies/${partner.companyId}`)
      .set(as(admin))
      .expect(200);
    await page.goto(`${service.url}/console/`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
    await page.getByRole('link', { name: `Imports of ${company.body.name as string}` }).click();
    await page.getByRole('heading', { name: `Imports of company ${partner.companyId}` }).waitFor();
    await expectTitle(page, `Imports of company ${partner.companyId}`);
    const row = page.locator('tbody tr');
    await row.first().waitFor();
    expect((await row.first().locator('td').allInnerTexts()).slice(3)).toEqual(['completed', '2', '1', '1']);
    await expectAccessible(page, 'imports');

    await page.getByRole('link', { name: `Import ${importId} (ndjson)` }).click();
    await page.getByRole('heading', { name: `Import ${importId}` }).waitFor();
    await page.getByText('Line 2:').waitFor();
    await page.getByText('The email must be a valid email address.').waitFor();
    expect(await page.getByText('Line 1:').count()).toBe(0);
    await expectAccessible(page, 'import');
    expect(cspViolations).toEqual([]);
  });
});
