import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import type { Actor } from '../kernel/access/actor';
import { CompaniesService } from '../companies/companies.service';
import { ProductsService } from '../products/products.service';
import { TokensService } from '../tokens/tokens.service';

const DEMO_ACTOR: Actor = { tokenId: null, userName: 'demo-seed', requestId: null };

/**
 * Development only: on the first start of the embedded database that gets this far, a demo company, products and tokens so a
 * newcomer can make an authenticated call at once. The tokens go to files (mode 0600) beside the cluster,
 * never into a log line; the banner shows how to use them. Never runs when DATABASE_URL is set. Runs before the
 * port is opened, so the service is never ready without its tokens (CONTRACT §8); returns the banner for the port.
 */
async function seedDemo(app: INestApplicationContext, dataDir: string): Promise<(port: number) => string> {
  const company = await app
    .get(CompaniesService)
    .create(DEMO_ACTOR, { name: 'Demo Restaurants', site: 'SK' });
  await app
    .get(ProductsService)
    .import(DEMO_ACTOR, [
      { name: 'POS terminal', variations: [{ name: 'Black' }, { name: 'White' }] },
      { name: 'Receipt printer' },
      { name: 'Tablet stand', variations: [{ name: 'Wall' }, { name: 'Counter' }] },
    ]);
  const tokens = app.get(TokensService);
  const partner = await tokens.issue(DEMO_ACTOR, {
    role: 'partner',
    userName: 'demo-partner',
    companyId: company.id,
  });
  const admin = await tokens.issue(DEMO_ACTOR, { role: 'admin', userName: 'demo-admin' });
  const partnerFile = join(dataDir, 'demo-partner.token');
  const adminFile = join(dataDir, 'demo-admin.token');
  await writeFile(partnerFile, `${partner.token}\n`, { mode: 0o600 });
  await writeFile(adminFile, `${admin.token}\n`, { mode: 0o600 });
  return (port) =>
    [
      '',
      '=== DEVELOPMENT ONLY: demo data created in the new embedded database ===',
      `Company "${company.name}" (site ${company.site}, id ${company.id}), three products, a partner and an admin token.`,
      `The tokens are in ${partnerFile} and ${adminFile}. Try:`,
      `  curl -H "Authorization: Bearer $(cat ${partnerFile})" http://localhost:${port}/api/v2/product`,
      `  curl -H "Authorization: Bearer $(cat ${adminFile})" http://localhost:${port}/api/v2/admin/companies`,
      `API documentation: http://localhost:${port}/api/docs`,
      '',
    ].join('\n');
}

/** What every later start of the embedded database prints: where the demo tokens are, and the docs. */
const demoReminder =
  (dataDir: string) =>
  (port: number): string => {
    const tokenFiles = ['demo-partner.token', 'demo-admin.token'].map((file) => join(dataDir, file));
    return [
      '',
      tokenFiles.every((file) => existsSync(file))
        ? `Embedded development database in ${dataDir}; its demo tokens are in ${tokenFiles.join(' and ')}.`
        : `Embedded development database in ${dataDir}.`,
      `API documentation: http://localhost:${port}/api/docs`,
      '',
    ].join('\n');
  };

/**
 * The banner of a start on the embedded database: the demo seed while no token exists yet (its first start,
 * or a first start that stopped before the seed, whose migrations this start has just completed), else the reminder.
 */
export async function prepareDemo(
  app: INestApplicationContext,
  dataDir: string,
): Promise<(port: number) => string> {
  const anyToken = await app.get(TokensService).list({}, 0, 1);
  return anyToken.length === 0 ? seedDemo(app, dataDir) : demoReminder(dataDir);
}
