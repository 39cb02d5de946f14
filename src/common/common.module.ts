import { type DynamicModule, Module } from '@nestjs/common';
import { ApiFormats } from './api-formats';
import { DEVICE_CREDENTIALS_KEY, DeviceCredentials } from './device-credentials';

@Module({})
export class CommonModule {
  static forRoot(deviceCredentialsKey: Buffer): DynamicModule {
    return {
      module: CommonModule,
      global: true,
      providers: [
        ApiFormats,
        DeviceCredentials,
        { provide: DEVICE_CREDENTIALS_KEY, useValue: deviceCredentialsKey },
      ],
      exports: [ApiFormats, DeviceCredentials, DEVICE_CREDENTIALS_KEY],
    };
  }
}
