import { readFileSync } from 'node:fs';

/**
 * Where a CPU profile's samples went, by layer of the request path: self time only, so each sample counts once;
 * start-up (until the last module is loaded) is left out. Used by profile-summary.ts and lifecycle.ts.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The layers, first match wins: the more specific before the general (webhooks before the database client). */
const LAYERS: [string, RegExp][] = [
  ['garbage collector', /^\(garbage collector\)$/],
  ['idle', /^\((idle|program)\)$/],
  ['logging (pino, pino-http, logging/)', /pino|sonic-boom|redact|\/logging\//],
  ['metrics (prom-client, metrics/)', /prom-client|\/metrics\//],
  [
    'webhook signing and sending (webhooks/, standardwebhooks)',
    /\/webhooks\/|standardwebhooks|fast-sha256|undici/,
  ],
  ['guards: rate limit (throttler, rate-limit/)', /throttler|rate-limit/],
  ['guards: auth (passport, auth/, tokens/, access/)', /passport|\/auth\/|\/tokens\/|\/access\//],
  [
    'validation (class-validator, class-transformer, validator)',
    /class-validator|class-transformer|\/validator\//,
  ],
  ['database client (pg, typeorm, platform/database/)', /\/pg|typeorm|\/platform\/database\//],
  ['serialisation (JSON, order-json, dto/)', /order-json|order-view|\/dto\/|^JSON/],
  ['helmet / http-security', /helmet|http-security/],
  ['Nest routing (@nestjs/core, common, platform-express)', /@nestjs\/(core|common|platform-express)/],
  [
    'Express (express, router, body-parser)',
    /express|router|body-parser|finalhandler|\/send\/|etag|fresh|qs\//,
  ],
  ['app code (dist/, other)', /\/dist\//],
  ['rxjs', /rxjs/],
  ['node: http, net, stream', /^node:(_http|http|net|stream|internal\/streams|_stream)/],
  ['node: crypto', /^node:(crypto|internal\/crypto)/],
  ['node: other', /^node:/],
];

function layerOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (!url && /^\(/.test(functionName))
    return LAYERS.find(([, match]) => match.test(functionName))?.[0] ?? functionName;
  if (!url) {
    if (/^JSON|stringify|parse$/.test(functionName))
      return LAYERS.find(([name]) => name.startsWith('serial'))![0];
    return `native: ${functionName || '(anonymous)'}`;
  }
  return LAYERS.find(([, match]) => match.test(url))?.[0] ?? 'other';
}

/** Node's own code and V8's builtins: their time goes to the layer that called them (pg's socket writes to pg). */
const isRuntime = (layer: string) => /^(node: |native: )/.test(layer);

/** The layer of a sample: its frame's, or for a runtime frame the nearest caller's that is not the runtime. */
function ownerOf(id: number, byId: Map<number, ProfileNode>, parents: Map<number, number>): string {
  const own = layerOf(byId.get(id)!);
  if (!isRuntime(own)) return own;
  for (let up = parents.get(id); up !== undefined; up = parents.get(up)) {
    const layer = layerOf(byId.get(up)!);
    if (!isRuntime(layer)) return layer;
  }
  return own;
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

export interface LayerShare {
  layer: string;
  /** CPU ms the profile attributes to the layer (sampled time, self). */
  ms: number;
  /** Its share of the busy time, in %. */
  percent: number;
}

/**
 * The profile's busy time by layer, largest first; idle left out. Time in Node's own code and V8's builtins is
 * its caller's (a socket write that pg makes is the database client's); what no library called stays Node's.
 */
export function profileLayers(file: string): { busyMs: number; layers: LayerShare[] } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const owners = new Map<number, string>();
  const totals = new Map<string, number>();
  const start = afterStartUp(profile, byId);
  for (let index = start; index < profile.samples.length; index += 1) {
    const id = profile.samples[index];
    let layer = owners.get(id);
    if (layer === undefined) owners.set(id, (layer = ownerOf(id, byId, parents)));
    // timeDeltas[i] is the time since the sample before: it belongs to sample i-1's node, about the same.
    totals.set(layer, (totals.get(layer) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  }
  totals.delete('idle');
  const busyMs = [...totals.values()].reduce((sum, ms) => sum + ms, 0);
  return {
    busyMs,
    layers: [...totals]
      .sort((a, b) => b[1] - a[1])
      .map(([layer, ms]) => ({ layer, ms, percent: (100 * ms) / Math.max(1, busyMs) })),
  };
}
