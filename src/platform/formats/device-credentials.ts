import { Injectable } from '@nestjs/common';
import { SecretSealer } from './secret-sealer';

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
  constructor(private readonly sealer: SecretSealer) {}

  /** The credentials of a stored order in plain text: the one place they are opened. */
  open(stored: Credentials): Credentials {
    return { login: this.sealer.open(stored.login), password: this.sealer.open(stored.password) };
  }

  /** The values with whichever credentials they carry sealed, ready to store. */
  seal<T extends Partial<Credentials>>(values: T): T {
    const sealed = { ...values };
    if (typeof values.login === 'string') sealed.login = this.sealer.seal(values.login);
    if (typeof values.password === 'string') sealed.password = this.sealer.seal(values.password);
    return sealed;
  }
}
