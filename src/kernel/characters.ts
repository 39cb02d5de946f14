/**
 * How many characters a text has as CONTRACT §2 counts them: Unicode code points, so a four-byte character
 * (an emoji) is one, like any other, and PostgreSQL's varchar(n) holds exactly n of them.
 */
export function characterCount(text: string): number {
  let pairs = 0;
  for (let index = 0; index < text.length - 1; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairs += 1;
        index += 1;
      }
    }
  }
  return text.length - pairs;
}
