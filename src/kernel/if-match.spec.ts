import { ValidationFailedError } from './domain-error';
import { etagOf, versionFromIfMatch } from './if-match';

describe('If-Match', () => {
  it('reads the version of a strong or weak ETag', () => {
    expect(versionFromIfMatch(etagOf(7))).toBe(7);
    expect(versionFromIfMatch('W/"12"')).toBe(12);
  });

  it('asks for nothing when absent or *', () => {
    expect(versionFromIfMatch(undefined)).toBeUndefined();
    expect(versionFromIfMatch('*')).toBeUndefined();
  });

  it.each(['7', '"abc"', '"1", "2"', ''])('refuses %p with a 400', (header) => {
    expect(() => versionFromIfMatch(header)).toThrow(ValidationFailedError);
  });
});
