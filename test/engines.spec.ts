import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { satisfies, subset } from 'semver';

/**
 * The Node.js versions package.json promises (engines.node) are ones every installed package supports: each
 * package's engines.node in package-lock.json must contain our whole range, so `npm ci` prints no EBADENGINE
 * on any Node we claim. An upgrade that drops Node 20 (or any version in our range) fails here.
 */
interface LockedPackage {
  version?: string;
  engines?: { node?: string };
}

const root = join(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};
const ours = manifest.engines.node;

describe('Node.js engines', () => {
  it('every locked package supports every Node version package.json promises', () => {
    const narrower = Object.entries(lock.packages)
      .map(([path, locked]) => ({ path, version: locked.version, node: locked.engines?.node }))
      .filter(({ node }) => node !== undefined && !subset(ours, node))
      .map(({ path, version, node }) => `${path.replace(/^node_modules\//, '')}@${version}: ${node}`);
    expect(narrower).toEqual([]);
  });

  it('the promise includes Node 20 (these machines), 22 (the Docker image) and the Node running this test', () => {
    for (const version of ['20.20.2', '22.22.0', process.version])
      expect(satisfies(version, ours)).toBe(true);
  });

  it('package-lock.json records the same promise as package.json', () => {
    expect(lock.packages[''].engines?.node).toBe(ours);
  });
});
