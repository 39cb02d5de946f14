import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Folders that hold no documentation of ours (dependencies, builds, data, results). */
const SKIPPED = new Set(['node_modules', '.git', '.data', 'dist', 'coverage']);

/** Every *.md file under `root`, as paths relative to it, outside node_modules and build output. */
export function markdownFiles(root: string, folder = root): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return markdownFiles(root, path);
    return entry.name.endsWith('.md') ? [relative(root, path)] : [];
  });
}

/** The lines of a Markdown text outside fenced code blocks, each with its 1-based line number. */
function proseLines(markdown: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(text);
    if (fence) {
      if (opening && opening[1].startsWith(fence)) fence = undefined;
    } else if (opening) {
      fence = opening[1];
    } else {
      lines.push({ line: index + 1, text });
    }
  });
  return lines;
}

/** GitHub's anchor for a heading: inline markup dropped, lower case, punctuation removed, spaces as dashes. */
export function slugOf(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a Markdown text offers: its headings (repeats numbered as GitHub does) and `<a id>`/`<a name>`. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading) {
      const slug = slugOf(heading[1]);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id);
  }
  return anchors;
}

export interface MarkdownLink {
  line: number;
  target: string;
}

/** The relative link and image targets of a Markdown text (inline and reference style), outside code. */
export function relativeLinksOf(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(/``[^`]*``|`[^`]*`/g, (code) => (code.includes('](') ? '' : code));
    const targets = [
      ...[...prose.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]),
      ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/g)].map((match) => match[1]),
    ];
    for (const target of targets)
      if (target && !/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ line, target });
  }
  return links;
}

/** Why a relative link of `file` (relative to `root`) does not resolve, or undefined when it does. */
export function brokenLink(root: string, file: string, target: string): string | undefined {
  const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
  const path = decodeURI(rawPath);
  const resolved = path === '' ? join(root, file) : resolve(root, dirname(file), path);
  if (!resolved.startsWith(resolve(root))) return 'points outside the repository';
  if (!existsSync(resolved)) return 'no such file';
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md'))
    return 'an anchor on a file that is not Markdown';
  return anchorsOf(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor))
    ? undefined
    : 'no such anchor';
}
