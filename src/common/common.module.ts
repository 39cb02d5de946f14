import { Global, Module } from '@nestjs/common';
import { ApiFormats } from './api-formats';

@Global()
@Module({ providers: [ApiFormats], exports: [ApiFormats] })
export class CommonModule {}
