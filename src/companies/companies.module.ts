import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CompaniesController } from './companies.controller';
import { CompaniesRepository } from './companies.repository';
import { CompaniesService } from './companies.service';
import { OwnsEntities } from '../platform/database/module-entities';
import { Company } from './company.entity';

@OwnsEntities(Company)
@Module({
  imports: [AuditModule],
  controllers: [CompaniesController],
  providers: [CompaniesRepository, CompaniesService],
  exports: [CompaniesService],
})
export class CompaniesModule {}
