import { DomainError } from '../kernel/domain-error';

export class CompanyNotFoundError extends DomainError {
  constructor() {
    super('COMPANY_NOT_FOUND', 'Company not found.');
  }
}
