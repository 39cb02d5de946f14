import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { anchorsOf, brokenLink, markdownFiles, relativeLinksOf, slugOf } from './harness/markdown';

/**
 * Every relative link and anchor in the repository's Markdown (node_modules and build output aside) resolves:
 * the file exists and, for a Markdown file, the anchor is one of its headings as GitHub names them; and no
 * console screenshot is left out of its page.
 */
const REPOSITORY = join(__dirname, '..');

describe('links in the documentation', () => {
  it('names anchors as GitHub does, and finds links outside code only', () => {
    expect(slugOf('Events: webhooks and the feed')).toBe('events-webhooks-and-the-feed');
    expect(slugOf('`POST /order` before and after (2026-11-23, shared machine)')).toBe(
      'post-order-before-and-after-2026-11-23-shared-machine',
    );
    expect(slugOf('Idempotency-Key')).toBe('idempotency-key');
    expect([...anchorsOf('# A\n## Notes\n```\n# not a heading\n```\n## Notes\n')]).toEqual([
      'a',
      'notes',
      'notes-1',
    ]);
    expect(
      relativeLinksOf(
        '[a](docs/x.md#y) [b](https://example.com) `[c](no.md)`\n```\n[d](no.md)\n```\n[e]: ../f.md\n',
      ),
    ).toEqual([
      { line: 1, target: 'docs/x.md#y' },
      { line: 5, target: '../f.md' },
    ]);
  });

  it('reports a missing file and a missing anchor (so a clean result means something)', () => {
    expect(brokenLink(REPOSITORY, 'README.md', 'docs/nowhere.md')).toBe('no such file');
    expect(brokenLink(REPOSITORY, 'README.md', '#no-such-heading')).toBe('no such anchor');
    expect(brokenLink(REPOSITORY, 'README.md', 'package.json')).toBeUndefined();
  });

  it('every relative link in every *.md resolves', () => {
    const files = markdownFiles(REPOSITORY);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md']));
    const broken = files.flatMap((file) =>
      relativeLinksOf(readFileSync(join(REPOSITORY, file), 'utf8')).flatMap(({ line, target }) => {
        const reason = brokenLink(REPOSITORY, file, target);
        return reason ? [`${file}:${line}: ${target} (${reason})`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it('shows every console screenshot in docs/console.md, each small enough to read on a slow line', () => {
    const folder = join(REPOSITORY, 'docs', 'console');
    const shown = new Set(
      relativeLinksOf(readFileSync(join(REPOSITORY, 'docs', 'console.md'), 'utf8')).map(
        ({ target }) => target,
      ),
    );
    const screenshots = readdirSync(folder);
    expect(screenshots.filter((name) => !shown.has(`console/${name}`))).toEqual([]);
    expect(screenshots.filter((name) => statSync(join(folder, name)).size > 300 * 1024)).toEqual([]);
  });
});
