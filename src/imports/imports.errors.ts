import { declareErrorCodes, DomainError } from '../kernel/domain-error';

declareErrorCodes({
  IMPORT_NOT_FOUND: { status: 404 },
  IMPORT_MEDIA_TYPE: { status: 415 },
});

/** An unknown import, or another company's: the same answer (CONTRACT §2). */
export class ImportNotFoundError extends DomainError {
  constructor() {
    super('IMPORT_NOT_FOUND', 'Import not found.');
  }
}

/** The upload is neither CSV nor NDJSON, or not UTF-8. */
export class ImportMediaTypeError extends DomainError {
  constructor() {
    super(
      'IMPORT_MEDIA_TYPE',
      'Unsupported media type: send the file as text/csv or application/x-ndjson (UTF-8).',
    );
  }
}
