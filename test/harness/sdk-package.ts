import { cp } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** The SDK package's folder (clients/typescript). */
export const SDK = join(__dirname, '..', '..', 'clients', 'typescript');

/** A copy of the SDK's folder without what a build or an install leaves there (dist/, node_modules/, tarballs). */
export function copySdkFolder(destination: string): Promise<void> {
  return cp(SDK, destination, {
    recursive: true,
    filter: (source) => !['dist', 'node_modules'].includes(basename(source)) && !source.endsWith('.tgz'),
  });
}

/** A partner's strict project compiling against the installed package (its own declarations checked too). */
export const PARTNER_COMPILER_OPTIONS = {
  target: 'ES2022',
  lib: ['ES2022'],
  types: ['node'],
  typeRoots: [join(__dirname, '..', '..', 'node_modules', '@types')],
  strict: true,
  skipLibCheck: false,
};
