import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../kernel/access/actor';
import { AuditService } from '../audit/audit.service';
import { CompaniesRepository, type CompanyFilter } from './companies.repository';
import { CompanyNotFoundError } from './companies.errors';
import type { Company } from './company.entity';
import { UnitOfWork } from '../platform/database/unit-of-work';

@Injectable()
export class CompaniesService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly companies: CompaniesRepository,
    private readonly audit: AuditService,
  ) {}

  create(actor: Actor, input: { name: string; site: string }): Promise<Company> {
    return this.unitOfWork.transaction(async (manager) => {
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

  /** Whether the company exists, read in the caller's transaction when given its manager. */
  async exists(id: number, manager?: EntityManager): Promise<boolean> {
    return (await this.companies.findById(id, manager)) !== null;
  }

  /** The company's site (the prefix of its order refs), or null for an unknown company; cached. */
  siteOf(id: number, manager?: EntityManager): Promise<string | null> {
    return this.companies.siteOf(id, manager);
  }

  async get(id: number): Promise<Company> {
    const company = await this.companies.findById(id);
    if (!company) throw new CompanyNotFoundError();
    return company;
  }

  named(name: string): Promise<Company[]> {
    return this.companies.named(name);
  }

  list(filter: CompanyFilter, offset: number, limit: number): Promise<Company[]> {
    return this.companies.list(filter, offset, limit);
  }

  /** The companies of the given ids, by id: one statement. */
  async byIds(ids: number[]): Promise<Map<number, Company>> {
    const companies = await this.companies.byIds([...new Set(ids)]);
    return new Map(companies.map((company) => [company.id, company]));
  }
}
