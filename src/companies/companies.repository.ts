import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { DataSource, type EntityManager, In, Raw } from 'typeorm';
import { containsIgnoringCase } from '../kernel/contains-filter';
import { Company } from './company.entity';

export interface CompanyFilter {
  name?: string;
  site?: string;
}

@Injectable()
export class CompaniesRepository {
  /** A company's site never changes (no route changes it), so each instance keeps the sites it has read. */
  private readonly sites = new LRUCache<number, string>({ max: 10_000 });

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  insert(manager: EntityManager, values: Pick<Company, 'name' | 'site'>): Promise<Company> {
    return manager.save(manager.create(Company, values));
  }

  findById(id: number, manager: EntityManager = this.dataSource.manager): Promise<Company | null> {
    return manager.findOneBy(Company, { id });
  }

  /**
   * The company's site, or null when there is no such company; served from memory after the first read,
   * which goes through `manager` (the caller's transaction, so a request holds one connection at a time).
   */
  async siteOf(id: number, manager?: EntityManager): Promise<string | null> {
    const cached = this.sites.get(id);
    if (cached !== undefined) return cached;
    const company = await this.findById(id, manager);
    if (company) this.sites.set(id, company.site);
    return company?.site ?? null;
  }

  /** The companies named `name`, but for case: names are not unique (the CLI warns about a namesake). */
  named(name: string): Promise<Company[]> {
    return this.dataSource.manager.find(Company, {
      where: { name: Raw((column) => `lower(${column}) = lower(:name)`, { name }) },
      order: { id: 'ASC' },
    });
  }

  /**
   * By id, optionally only a site's (exact) or those whose name contains a text (companies_name_trgm_idx for a
   * text of 3 characters or more, see docs/performance.md).
   */
  list(filter: CompanyFilter, offset: number, limit: number): Promise<Company[]> {
    return this.dataSource.manager.find(Company, {
      where: {
        ...(filter.name === undefined ? {} : { name: containsIgnoringCase(filter.name, 'name_contains') }),
        ...(filter.site === undefined ? {} : { site: filter.site.toUpperCase() }),
      },
      order: { id: 'ASC' },
      skip: offset,
      take: limit,
    });
  }

  /** The companies of the given ids, in one statement (companies_pkey). */
  byIds(ids: number[]): Promise<Company[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.dataSource.manager.findBy(Company, { id: In(ids) });
  }
}
