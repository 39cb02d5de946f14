import { Inject, Injectable } from '@nestjs/common';
import { OpenedSecrets } from '../../kernel/opened-secrets';
import { seal } from '../../kernel/sealed-secret';

/** The injection token of the 32-byte sealing key (DEVICE_CREDENTIALS_KEY, or the embedded default's). */
export const DEVICE_CREDENTIALS_KEY = Symbol('DEVICE_CREDENTIALS_KEY');

/**
 * Seals and opens the secrets the service keeps at rest (device credentials, webhook signing secrets) under
 * its one key, so the key itself never leaves this class. What it opened it keeps (OpenedSecrets).
 */
@Injectable()
export class SecretSealer {
  private readonly opened: OpenedSecrets;

  constructor(@Inject(DEVICE_CREDENTIALS_KEY) private readonly key: Buffer) {
    this.opened = new OpenedSecrets(key);
  }

  seal(plaintext: string): string {
    return seal(this.key, plaintext);
  }

  open(sealed: string): string {
    return this.opened.open(sealed);
  }
}
