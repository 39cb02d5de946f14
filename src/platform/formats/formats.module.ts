import { type DynamicModule, Module } from '@nestjs/common';
import { ApiFormats } from './api-formats';
import { DeviceCredentials } from './device-credentials';
import { DEVICE_CREDENTIALS_KEY, SecretSealer } from './secret-sealer';

@Module({})
export class CommonModule {
  static forRoot(deviceCredentialsKey: Buffer): DynamicModule {
    return {
      module: CommonModule,
      global: true,
      providers: [
        ApiFormats,
        DeviceCredentials,
        SecretSealer,
        { provide: DEVICE_CREDENTIALS_KEY, useValue: deviceCredentialsKey },
      ],
      exports: [ApiFormats, DeviceCredentials, SecretSealer],
    };
  }
}
