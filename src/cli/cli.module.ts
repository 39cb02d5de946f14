import { type DynamicModule, Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CompaniesModule } from '../companies/companies.module';
import { FoundationModule, type FoundationSettings } from '../platform/foundation.module';
import { TokensModule } from '../tokens/tokens.module';
import { CompaniesCreateCommand } from './commands/companies-create.command';
import { TokensCreateCommand } from './commands/tokens-create.command';
import { TokensRevokeCommand } from './commands/tokens-revoke.command';
import { TokensRollCommand } from './commands/tokens-roll.command';
import { ProductsImportCommand } from './commands/products-import.command';
import { ProductsModule } from '../products/products.module';

/** The manual steps of spec §5 as commands, on the same services (and audit trail) as the admin API. */
@Module({})
export class CliModule {
  static forRoot(settings: FoundationSettings): DynamicModule {
    return {
      module: CliModule,
      imports: [
        FoundationModule.forRoot(settings),
        AuditModule,
        CompaniesModule,
        TokensModule,
        ProductsModule,
      ],
      providers: [
        CompaniesCreateCommand,
        TokensCreateCommand,
        TokensRevokeCommand,
        TokensRollCommand,
        ProductsImportCommand,
      ],
    };
  }
}
