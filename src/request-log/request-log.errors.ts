import { declareErrorCodes, DomainError } from '../kernel/domain-error';

declareErrorCodes({ REQUEST_NOT_FOUND: { status: 404 } });

/** No request of that id in the log the caller reads (another company's looks the same). */
export class RequestNotFoundError extends DomainError {
  constructor() {
    super('REQUEST_NOT_FOUND', 'Request not found.');
  }
}
