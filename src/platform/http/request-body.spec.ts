import { jsonDepthExceeds, MAX_JSON_DEPTH } from './request-body';

const depthExceeds = (text: string) => jsonDepthExceeds(Buffer.from(text), MAX_JSON_DEPTH);
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('jsonDepthExceeds', () => {
  it('allows 32 levels of arrays and objects, mixed, and refuses 33', () => {
    expect(depthExceeds(nested(32))).toBe(false);
    expect(depthExceeds(nested(33))).toBe(true);
    expect(depthExceeds(`{"a":${'{"a":['.repeat(15)}1${']}'.repeat(15)}}`)).toBe(false);
    expect(depthExceeds(`{"a":${'{"a":['.repeat(16)}1${']}'.repeat(16)}}`)).toBe(true);
  });

  it('counts depth, not the number of brackets: siblings do not add up', () => {
    expect(depthExceeds(`[${Array.from({ length: 1_000 }, () => nested(31)).join(',')}]`)).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(depthExceeds(JSON.stringify({ a: '['.repeat(100), b: '\\"[[[[', c: '"{{{{"' }))).toBe(false);
    expect(depthExceeds(`{"a":"\\\\",${'"b":['.repeat(1)}${nested(32)}]}`)).toBe(true);
  });
});
