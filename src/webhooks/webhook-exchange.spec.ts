import { bodyStart, boundedHeaders } from './webhook-exchange';

describe("what an attempt keeps of a receiver's answer", () => {
  it('keeps headers in lower case, joins a repeated one, and cuts a long value at 1,024 characters', () => {
    const kept = boundedHeaders([
      'Content-Type',
      'text/plain',
      'Set-Cookie',
      'a=1',
      'set-cookie',
      'b=2',
      'X-Long',
      'v'.repeat(5000),
    ]);
    expect(kept).toEqual({
      'content-type': 'text/plain',
      'set-cookie': 'a=1, b=2',
      'x-long': 'v'.repeat(1024),
    });
  });

  it('keeps at most 50 headers and 4,096 characters of names and values in all', () => {
    const many = Array.from({ length: 80 }, (_, index) => [`x-${index}`, 'v']).flat();
    expect(Object.keys(boundedHeaders(many))).toHaveLength(50);
    const large = Array.from({ length: 10 }, (_, index) => [`x-${index}`, 'v'.repeat(1000)]).flat();
    const kept = boundedHeaders(large);
    expect(Object.keys(kept)).toEqual(['x-0', 'x-1', 'x-2', 'x-3']);
    expect(
      Object.entries(kept).reduce((chars, [name, value]) => chars + name.length + value.length, 0),
    ).toBeLessThanOrEqual(4096);
  });

  it('keeps the first 4 KiB of a body, with U+0000 (which PostgreSQL refuses) replaced', () => {
    expect(Buffer.byteLength(bodyStart([Buffer.from('a'.repeat(3000)), Buffer.from('b'.repeat(3000))]))).toBe(
      4096,
    );
    expect(bodyStart([Buffer.from('a\u0000b')])).toBe('a\uFFFDb');
    expect(boundedHeaders(['x-nul', 'a\u0000b'])).toEqual({ 'x-nul': 'a\uFFFDb' });
  });
});
