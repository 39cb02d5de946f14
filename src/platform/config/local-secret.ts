import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * A secret of the local default (./.data): read from its file, or generated into it (hex, mode 0600) on
 * first use. Creation is exclusive, so two processes starting together end up with the same secret.
 */
export async function readOrCreateSecretFile(file: string, bytes: number): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  const secret = randomBytes(bytes).toString('hex');
  try {
    await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return (await readFile(file, 'utf8')).trim();
  }
}
