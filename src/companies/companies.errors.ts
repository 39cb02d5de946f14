import { declareErrorCodes, DomainError } from '../kernel/domain-error';

declareErrorCodes({ COMPANY_NOT_FOUND: { status: 404 } });

export class CompanyNotFoundError extends DomainError {
  constructor() {
    super('COMPANY_NOT_FOUND', 'Company not found.');
  }
}
