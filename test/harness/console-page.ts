import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium';

/** Where each screen's screenshot goes: a temporary folder, or CONSOLE_SCREENSHOTS (docs/console for the docs). */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ?? join(tmpdir(), 'console-screenshots');

/** A browser with the one page a console spec drives, and what that page reported. */
export interface ConsoleBrowser {
  browser: Browser;
  page: Page;
  /** Every Content Security Policy violation the page logged. */
  cspViolations: string[];
  /** What the browser asked for and got 404 (a missing favicon, for one). */
  notFound: string[];
}

/**
 * Chromium with one 1280×800 page that records CSP violations and 404s; `clipboardOrigin`, when given, may read
 * and write the clipboard.
 */
export async function openConsoleBrowser(clipboardOrigin?: string): Promise<ConsoleBrowser> {
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  if (clipboardOrigin)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: clipboardOrigin });
  const page = await context.newPage();
  const cspViolations: string[] = [];
  const notFound: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });
  page.on('response', (response) => {
    if (response.status() === 404) notFound.push(response.url());
  });
  return { browser, page, cspViolations, notFound };
}

/** Signs in on the sign-in form with `token`, pressing Enter as a person would. */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Admin token').fill(token);
  await page.keyboard.press('Enter');
}

/** The document title is the screen's own, then the console's name. */
export async function expectTitle(page: Page, screen: string): Promise<void> {
  expect(await page.title()).toBe(`${screen} · Restaurant Orders admin console`);
}

/** axe finds no serious or critical WCAG 2.1 AA violation on the page as it stands. */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
  const serious = result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${screen}: ${violation.id} (${violation.nodes.map((node) => node.target).join(' ')})`,
    );
  expect(serious).toEqual([]);
}

/**
 * Saves the page as `name`.png in the screenshots folder (the ones in docs/console.md): the whole page, or its top
 * `height` pixels where the page runs long.
 */
export async function shot(page: Page, name: string, { height }: { height?: number } = {}): Promise<void> {
  const clip = height ? { x: 0, y: 0, width: page.viewportSize()!.width, height } : undefined;
  await page.screenshot({
    path: join(SCREENSHOTS, `${name}.png`),
    fullPage: true,
    clip,
    animations: 'disabled',
  });
}

/** Presses Tab until `focused()` names `name` (the keyboard alone, as a person would), at most `presses` times. */
export async function tabTo(
  page: Page,
  name: string,
  focused: () => Promise<string>,
  presses = 40,
): Promise<void> {
  for (let press = 0; press < presses; press += 1) {
    if ((await focused()) === name) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached "${name}" (focus is on "${await focused()}")`);
}

/** Runs `expression` in the page (a string: this project's types have no DOM). */
export const inPage = <T>(page: Page, expression: string) => page.evaluate<T>(expression);
