import { characterCount } from './characters';

describe('characterCount (CONTRACT §2: characters are code points)', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['Žluťoučký', 9],
    ['😀', 1],
    ['😀'.repeat(50), 50],
    ['❤️', 2],
    ['a\ud800b', 3],
    ['\udc00\ud800', 2],
  ])('counts %j as %i', (text, count) => {
    expect(characterCount(text)).toBe(count);
    expect(characterCount(text)).toBe([...text].length);
  });
});
