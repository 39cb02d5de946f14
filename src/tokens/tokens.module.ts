import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CompaniesModule } from '../companies/companies.module';
import { TokensController } from './tokens.controller';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';
import { OwnsEntities } from '../platform/database/module-entities';
import { ApiToken } from './api-token.entity';

@OwnsEntities(ApiToken)
@Module({
  imports: [AuditModule, CompaniesModule],
  controllers: [TokensController],
  providers: [TokensRepository, TokensService],
  exports: [TokensService],
})
export class TokensModule {}
