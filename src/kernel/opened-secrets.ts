import { LRUCache } from 'lru-cache';
import { SEALED_MAX_LENGTH, unseal } from './sealed-secret';

/** How many opened values are kept, and their size in all (characters of sealed and plain text). */
const MAX_ENTRIES = 10_000;
const MAX_SIZE = 4_000_000;

/**
 * Opens sealed values under one key, keeping what it opened. Opening costs an AES-256-GCM decipher (about
 * 14 µs, most of it creating the decipher), and the same stored values are opened again and again: every
 * order of a list page has its device `login` and `password`, every webhook attempt its endpoint's signing
 * secret. What was opened is kept in memory, keyed by the sealed text (a value sealed anew has a new IV, so a
 * new key), for values up to the longest sealed device credential; larger ones (a stored idempotent response)
 * are opened each time. Only what authenticated under the key is kept: a changed or foreign value fails each
 * time.
 */
export class OpenedSecrets {
  private readonly opened = new LRUCache<string, string>({
    max: MAX_ENTRIES,
    maxSize: MAX_SIZE,
    sizeCalculation: (plaintext, sealed) => plaintext.length + sealed.length,
  });

  constructor(private readonly key: Buffer) {}

  open(sealed: string): string {
    const known = this.opened.get(sealed);
    if (known !== undefined) return known;
    const plaintext = unseal(this.key, sealed);
    if (sealed.length <= SEALED_MAX_LENGTH) this.opened.set(sealed, plaintext);
    return plaintext;
  }
}
