import type { StoredHeaders } from './webhook-delivery.entity';

/** The most of a receiver's body an attempt keeps (CONTRACT §6: the first 4 KiB). */
export const RESPONSE_BODY_BYTES = 4096;
/** The most response headers an attempt keeps, and their total size (names and values, in characters). */
export const RESPONSE_HEADER_COUNT = 50;
export const RESPONSE_HEADER_CHARS = 4096;
/** A longer header value is cut to this many characters. */
export const HEADER_VALUE_CHARS = 1024;

/** PostgreSQL's text and jsonb refuse U+0000: a receiver's bytes are stored with it replaced. */
const withoutNul = (text: string): string => text.replaceAll('\u0000', '\uFFFD');

/**
 * A receiver's headers as an attempt keeps them: names in lower case, a repeated header's values joined by
 * `, `, each value cut at HEADER_VALUE_CHARS, and no header once RESPONSE_HEADER_COUNT are kept or their
 * total would pass RESPONSE_HEADER_CHARS. `rawHeaders` is Node's flat [name, value, ...] list.
 */
export function boundedHeaders(rawHeaders: string[]): StoredHeaders {
  const kept: StoredHeaders = {};
  let chars = 0;
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = withoutNul(rawHeaders[index].toLowerCase()).slice(0, HEADER_VALUE_CHARS);
    const value = withoutNul(rawHeaders[index + 1]).slice(0, HEADER_VALUE_CHARS);
    const previous = kept[name];
    if (previous === undefined && Object.keys(kept).length >= RESPONSE_HEADER_COUNT) break;
    const joined = previous === undefined ? value : `${previous}, ${value}`.slice(0, HEADER_VALUE_CHARS);
    const added = previous === undefined ? name.length + joined.length : joined.length - previous.length;
    if (chars + added > RESPONSE_HEADER_CHARS) break;
    kept[name] = joined;
    chars += added;
  }
  return kept;
}

/** The first RESPONSE_BODY_BYTES of a body as text (a character cut at the edge becomes U+FFFD). */
export function bodyStart(chunks: Buffer[]): string {
  return withoutNul(Buffer.concat(chunks).subarray(0, RESPONSE_BODY_BYTES).toString('utf8'));
}
