import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import Chromium from '@sparticuz/chromium';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium; `.ci/run` installs it when missing. */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';
/** CHROMIUM_PATH's value that picks the Chromium of the npm package even where Debian's is installed. */
export const NPM_CHROMIUM = 'npm';

/**
 * The headless Chromium that @sparticuz/chromium ships inside its npm tarball (no download at install or run):
 * extracted to the temporary folder on first use. It links glibc and the NSS and expat libraries, which the
 * package ships too (built for Amazon Linux); those go on LD_LIBRARY_PATH so a Debian machine with nothing but
 * Node.js runs it.
 */
async function npmChromium(): Promise<{ executablePath: string; env: Record<string, string> }> {
  const executablePath = await Chromium.executablePath();
  const libraries = join(tmpdir(), 'al2023', 'lib');
  if (!existsSync(join(libraries, 'libnss3.so'))) {
    const bin = join(dirname(require.resolve('@sparticuz/chromium')), '..', '..', 'bin');
    mkdirSync(dirname(libraries), { recursive: true });
    const untar = spawnSync('tar', ['-x', '-C', dirname(libraries)], {
      input: brotliDecompressSync(readFileSync(join(bin, 'al2023.tar.br'))),
    });
    if (untar.status !== 0) throw new Error(`Could not unpack Chromium's libraries: ${String(untar.stderr)}`);
  }
  const env = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return {
    executablePath,
    env: { ...env, LD_LIBRARY_PATH: libraries, FONTCONFIG_PATH: join(tmpdir(), 'fonts') },
  };
}

function chosenBinary(): string | undefined {
  const wanted = process.env.CHROMIUM_PATH;
  if (wanted === NPM_CHROMIUM) return undefined;
  return wanted ?? (existsSync(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : undefined);
}

/**
 * The browser of the browser tests, headless: CHROMIUM_PATH when it names a binary; else Debian's Chromium
 * when installed; else (or with CHROMIUM_PATH=npm) the one the @sparticuz/chromium package ships, so that
 * `npm install && npm test` passes on a machine with only Node.js.
 */
export async function launchChromium(): Promise<Browser> {
  const binary = chosenBinary();
  const launch = binary ? { executablePath: binary } : await npmChromium();
  return chromium.launch({ ...launch, args: ['--no-sandbox'] });
}
