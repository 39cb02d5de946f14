import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Company } from './company.entity';

@Injectable()
export class CompaniesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  insert(manager: EntityManager, values: Pick<Company, 'name' | 'site'>): Promise<Company> {
    return manager.save(manager.create(Company, values));
  }

  findById(id: number, manager: EntityManager = this.dataSource.manager): Promise<Company | null> {
    return manager.findOneBy(Company, { id });
  }

  list(offset: number, limit: number): Promise<Company[]> {
    return this.dataSource.manager.find(Company, { order: { id: 'ASC' }, skip: offset, take: limit });
  }
}
