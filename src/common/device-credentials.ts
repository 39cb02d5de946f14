import { Inject, Injectable } from '@nestjs/common';
import { seal, unseal } from './sealed-secret';

/** The injection token of the 32-byte key (DEVICE_CREDENTIALS_KEY, or the embedded default's). */
export const DEVICE_CREDENTIALS_KEY = Symbol('DEVICE_CREDENTIALS_KEY');

export interface Credentials {
  login: string;
  password: string;
}

/**
 * The device `login` and `password` of orders are stored sealed (AES-256-GCM, `v1:` format of
 * sealed-secret.ts) and opened only to answer the partner, who reads them back as the spec requires.
 */
@Injectable()
export class DeviceCredentials {
  constructor(@Inject(DEVICE_CREDENTIALS_KEY) private readonly key: Buffer) {}

  /** The credentials of a stored order in plain text: the one place they are opened. */
  open(stored: Credentials): Credentials {
    return { login: unseal(this.key, stored.login), password: unseal(this.key, stored.password) };
  }

  /** The values with whichever credentials they carry sealed, ready to store. */
  seal<T extends Partial<Credentials>>(values: T): T {
    const sealed = { ...values };
    if (typeof values.login === 'string') sealed.login = seal(this.key, values.login);
    if (typeof values.password === 'string') sealed.password = seal(this.key, values.password);
    return sealed;
  }
}
