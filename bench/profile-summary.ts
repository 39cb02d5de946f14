import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a CPU profile's samples went, by layer: `npx tsx bench/profile-summary.ts [file.cpuprofile]` (default:
 * the newest profile in bench/results/profiles). Self time only, so each sample counts once; start-up (until the
 * last module is loaded) is left out.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

/** The first sample after start-up: after the last one spent loading modules. */
function afterStartUp(profile: Profile, byId: Map<number, ProfileNode>): number {
  const loading = (id: number) => {
    const { url, functionName } = byId.get(id)!.callFrame;
    return (
      url.startsWith('node:internal/modules') || /^(readFileUtf8|internalModuleStat)$/.test(functionName)
    );
  };
  for (let index = profile.samples.length - 1; index >= 0; index -= 1)
    if (loading(profile.samples[index])) return index + 1;
  return 0;
}

const LAYERS: [string, RegExp][] = [
  ['garbage collector', /^\(garbage collector\)$/],
  ['idle', /^\((idle|program)\)$/],
  ['request log (pino, pino-http, redact, logging/)', /pino|sonic-boom|redact|\/logging\//],
  ['helmet / http-security', /helmet|http-security/],
  ['rate limit (throttler, rate-limit/)', /throttler|rate-limit/],
  ['auth (passport, auth/, tokens/)', /passport|\/auth\/|\/tokens\//],
  ['class-validator / class-transformer', /class-validator|class-transformer/],
  ['@nestjs/core + common', /@nestjs\/(core|common|platform-express)/],
  ['express, router, body-parser', /express|router|body-parser|finalhandler|send|etag|fresh|qs\//],
  ['pg, typeorm', /\/pg|typeorm/],
  ['app code (dist/)', /\/dist\//],
  ['node: http, net, stream', /^node:(_http|http|net|stream|internal\/streams|_stream)/],
  ['node: other', /^node:/],
];

function layerOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  const name = url || functionName;
  if (!url && /^\(/.test(functionName))
    return LAYERS.find(([, match]) => match.test(functionName))?.[0] ?? functionName;
  if (!url) return `native: ${functionName || '(anonymous)'}`;
  return LAYERS.find(([, match]) => match.test(name))?.[0] ?? 'other';
}

function newestProfile(): string {
  const dir = join(__dirname, 'results', 'profiles');
  const files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
  return join(dir, files.sort((a, b) => statSync(join(dir, b)).mtimeMs - statSync(join(dir, a)).mtimeMs)[0]);
}

const file = process.argv[2] ?? newestProfile();
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const counts = new Map<string, number>();
const samples = profile.samples.slice(afterStartUp(profile, byId));
for (const sample of samples) {
  const layer = layerOf(byId.get(sample)!);
  counts.set(layer, (counts.get(layer) ?? 0) + 1);
}
const busy = samples.length - (counts.get('idle') ?? 0);
console.log(`${file}\n${busy} busy samples (idle excluded)`);
for (const [layer, count] of [...counts].sort((a, b) => b[1] - a[1])) {
  if (layer === 'idle') continue;
  console.log(`${((100 * count) / busy).toFixed(1).padStart(5)} %  ${layer}`);
}
