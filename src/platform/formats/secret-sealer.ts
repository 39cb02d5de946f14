import { Inject, Injectable } from '@nestjs/common';
import { seal, unseal } from '../../kernel/sealed-secret';

/** The injection token of the 32-byte sealing key (DEVICE_CREDENTIALS_KEY, or the embedded default's). */
export const DEVICE_CREDENTIALS_KEY = Symbol('DEVICE_CREDENTIALS_KEY');

/**
 * Seals and opens the secrets the service keeps at rest (device credentials, webhook signing secrets) under
 * its one key, so the key itself never leaves this class.
 */
@Injectable()
export class SecretSealer {
  constructor(@Inject(DEVICE_CREDENTIALS_KEY) private readonly key: Buffer) {}

  seal(plaintext: string): string {
    return seal(this.key, plaintext);
  }

  open(sealed: string): string {
    return unseal(this.key, sealed);
  }
}
