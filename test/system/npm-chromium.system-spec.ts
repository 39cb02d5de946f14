import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';
import Chromium from '@sparticuz/chromium';
import type { Browser } from 'playwright-core';
import { launchChromium, NPM_CHROMIUM } from '../harness/chromium';

/**
 * What a Debian machine with only Node.js has of what Chromium loads: glibc (libc6) and libgcc-s1, both
 * required on every Debian system and loaded by Node.js itself.
 */
const EVERY_DEBIAN = new Set([
  'ld-linux-x86-64.so.2',
  'libc.so.6',
  'libdl.so.2',
  'libm.so.6',
  'libpthread.so.0',
  'librt.so.1',
  'libgcc_s.so.1',
]);
const SYSTEM_LIBRARIES = /^\/(usr\/)?lib/;

/** The shared libraries mapped by the running processes of `executable`. */
function librariesLoadedBy(executable: string): Set<string> {
  const libraries = new Set<string>();
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    let maps: string;
    try {
      if (readlinkSync(`/proc/${pid}/exe`) !== executable) continue;
      maps = readFileSync(`/proc/${pid}/maps`, 'utf8');
    } catch {
      continue; // a process that ended meanwhile, or not ours to read
    }
    for (const match of maps.matchAll(/ (\/\S+\.so(?:\.[\d.]+)?)$/gm)) libraries.add(match[1]);
  }
  return libraries;
}

/**
 * `npm install && npm test` on a machine with only Node.js: the browser test falls back to the Chromium that
 * @sparticuz/chromium ships inside its npm package. This runs that Chromium even where Debian's is installed.
 */
(process.platform === 'linux' ? describe : describe.skip)('the Chromium shipped by npm', () => {
  let browser: Browser;
  const wanted = process.env.CHROMIUM_PATH;

  beforeAll(async () => {
    process.env.CHROMIUM_PATH = NPM_CHROMIUM;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (wanted === undefined) delete process.env.CHROMIUM_PATH;
    else process.env.CHROMIUM_PATH = wanted;
  });

  it('runs a page headless and needs nothing from the system but glibc and libgcc', async () => {
    const page = await browser.newPage();
    await page.setContent('<button onclick="this.textContent = 6 * 7">Answer</button>');
    await page.getByRole('button', { name: 'Answer' }).click();
    expect(await page.getByRole('button').textContent()).toBe('42');

    const loaded = librariesLoadedBy(await Chromium.executablePath());
    expect(loaded.size).toBeGreaterThan(0);
    const fromSystem = [...loaded]
      .filter((library) => SYSTEM_LIBRARIES.test(library))
      .map((library) => basename(library));
    expect(fromSystem.filter((library) => !EVERY_DEBIAN.has(library))).toEqual([]);
  });
});
