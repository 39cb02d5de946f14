import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Actor } from '../kernel/access/actor';
import { AuditService } from '../audit/audit.service';
import { CompaniesRepository } from './companies.repository';
import { CompanyNotFoundError } from './companies.errors';
import type { Company } from './company.entity';

@Injectable()
export class CompaniesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly companies: CompaniesRepository,
    private readonly audit: AuditService,
  ) {}

  create(actor: Actor, input: { name: string; site: string }): Promise<Company> {
    return this.dataSource.transaction(async (manager) => {
      const company = await this.companies.insert(manager, {
        name: input.name,
        site: input.site.toUpperCase(),
      });
      await this.audit.record(manager, actor, {
        action: 'company.created',
        targetType: 'company',
        targetId: company.id,
        companyId: company.id,
        changedFields: ['name', 'site'],
      });
      return company;
    });
  }

  async get(id: number): Promise<Company> {
    const company = await this.companies.findById(id);
    if (!company) throw new CompanyNotFoundError();
    return company;
  }

  named(name: string): Promise<Company[]> {
    return this.companies.named(name);
  }

  list(offset: number, limit: number): Promise<Company[]> {
    return this.companies.list(offset, limit);
  }
}
