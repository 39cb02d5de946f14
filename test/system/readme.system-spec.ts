/**
 * Every ```sh block of README.md and then of docs/tutorial.md runs here, in that order, against a freshly
 * started service, so the commands a newcomer copies work. For anyone adding a section to either:
 *
 * - A block is run when its opening fence is exactly ```sh (not indented, nothing after "sh") and it ends at
 *   the next line that is exactly ```. Blocks tagged otherwise (```text, ```json, ```js, none) are never run:
 *   use ```text for what cannot run here (a server in the foreground, Docker, another database, minutes).
 * - All run blocks form one bash script with `set -euo pipefail`, in that order: a variable one block sets
 *   (T, API, ORDER, ...) is there in the next. A failing command fails the test, naming its file and line.
 *   `curl -s` does not fail on an HTTP error status, so a block that must prove something ends with a check
 *   that fails otherwise (`jq -e`, `jq -er .field`, `grep -q`).
 * - The service runs as `WEBHOOK_ALLOW_PRIVATE=true npm start` would, on its embedded PostgreSQL, first start
 *   (the demo data is fresh). The working directory is a scratch project folder (links to every file of the
 *   project, its own ./.data), so `cat .data/demo-partner.token` and `npm run -s cli -- ...` work as after
 *   `npm start` in a clone.
 * - `localhost:3000` in a block becomes the service's port and `8080` a free port for a local receiver, so
 *   parallel runs do not collide. Jobs a block starts in the background (`... &`) are stopped at the end.
 * - No command may get a 500 from the service: the output must never contain "Server error.".
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '../../src/platform/database/free-port';
import { startService, type RunningService } from '../harness/service';

const REPOSITORY = join(__dirname, '..', '..');
/** The documents whose ```sh blocks run, in order: the README's quick start, then the tutorial. */
const DOCUMENTS = ['README.md', 'docs/tutorial.md'];
const SCRIPT_TIMEOUT_MS = 240_000;

export interface ShellBlock {
  /** The document, relative to the repository. */
  file?: string;
  /** 1-based line of the opening fence in the document. */
  line: number;
  code: string;
}

/** The ```sh blocks of a Markdown text, in order (see the rules at the top of this file). */
export function shellBlocks(markdown: string, file = 'the Markdown text'): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  let open: { line: number; lines: string[]; run: boolean } | undefined;
  markdown.split('\n').forEach((text, index) => {
    if (!open) {
      const fence = /^```(\S*)\s*$/.exec(text);
      if (fence) open = { line: index + 1, lines: [], run: fence[1] === 'sh' };
    } else if (/^```\s*$/.test(text)) {
      if (open.run) blocks.push({ line: open.line, code: open.lines.join('\n') });
      open = undefined;
    } else {
      open.lines.push(text);
    }
  });
  if (open) throw new Error(`${file}: the block opened at line ${open.line} is never closed`);
  return blocks;
}

/** One bash script of all blocks; each announces itself on stderr so a failure names its file and line. */
function scriptOf(blocks: ShellBlock[], servicePort: number, receiverPort: number): string {
  const body = blocks.map(({ file, line, code }) => {
    const local = code
      .replace(/\b(localhost|127\.0\.0\.1):3000\b/g, `$1:${servicePort}`)
      .replace(/\b8080\b/g, String(receiverPort));
    return `echo "### ${file} block at line ${line}" >&2\n${local}`;
  });
  return ['set -euo pipefail', "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT", ...body].join('\n');
}

describe('README.md and docs/tutorial.md', () => {
  const blocks = DOCUMENTS.flatMap((file) =>
    shellBlocks(readFileSync(join(REPOSITORY, file), 'utf8'), file).map((block) => ({ ...block, file })),
  );
  const workDir = mkdtempSync(join(tmpdir(), 'roa-readme-'));
  let service: RunningService | undefined;

  beforeAll(() => {
    chmodSync(workDir, 0o755);
    for (const entry of readdirSync(REPOSITORY))
      if (!['.data', '.git'].includes(entry)) symlinkSync(join(REPOSITORY, entry), join(workDir, entry));
  });

  afterAll(async () => {
    await service?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('finds the ```sh blocks, and only those', () => {
    expect(
      shellBlocks(
        'a\n```sh\necho 1\n```\n```text\nnpm start\n```\n```json\n{}\n```\n```sh\necho 2\necho 3\n```\n',
      ),
    ).toEqual([
      { line: 2, code: 'echo 1' },
      { line: 11, code: 'echo 2\necho 3' },
    ]);
    expect(blocks.filter((block) => block.file === 'README.md').length).toBeGreaterThanOrEqual(1);
    expect(blocks.filter((block) => block.file === 'docs/tutorial.md').length).toBeGreaterThanOrEqual(4);
  });

  it(
    'runs every ```sh block, in order, against a fresh `npm start`',
    async () => {
      service = await startService({
        embeddedDatabase: true,
        cwd: workDir,
        env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '1000' },
      });
      const script = scriptOf(blocks, Number(new URL(service.url).port), await findFreePort());
      const shell = spawn('bash', ['-c', script], {
        cwd: workDir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: SCRIPT_TIMEOUT_MS,
      });
      let output = '';
      shell.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      shell.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code] = (await once(shell, 'exit')) as [number | null];
      expect({ code, output }).toEqual({
        code: 0,
        output: expect.not.stringContaining('Server error.') as unknown,
      });
      expect(output).toContain('"type":"order.placed"');
    },
    SCRIPT_TIMEOUT_MS + 60_000,
  );
});
