import type { ErrorCode, FieldErrors } from '../../kernel/domain-error';

export interface ErrorResponse {
  status: number;
  body: Record<string, unknown>;
}

/** The wire bodies of CONTRACT §2 for each error code; one table, used only by the exception filter. */
export function errorResponseFor(
  code: ErrorCode,
  message: string,
  fieldErrors: FieldErrors | undefined,
  docsUrl: string,
): ErrorResponse {
  switch (code) {
    case 'VALIDATION_FAILED':
      return { status: 400, body: { message, errors: fieldErrors ?? {} } };
    case 'BAD_REQUEST':
      return { status: 400, body: { message: 'Bad request.' } };
    case 'MALFORMED_JSON':
      return { status: 400, body: { message: 'Bad request.', errors: { body: ['Malformed JSON.'] } } };
    case 'NESTED_TOO_DEEPLY':
      return { status: 400, body: { message: 'Bad request.', errors: { body: ['Nested too deeply.'] } } };
    case 'UNSUPPORTED_MEDIA_TYPE':
      return {
        status: 415,
        body: { message: 'Unsupported media type: send the body as application/json (UTF-8).' },
      };
    case 'REQUEST_TIMEOUT':
      return { status: 408, body: { message: 'Request timeout: the body did not arrive in time.' } };
    case 'PAYLOAD_TOO_LARGE':
      return { status: 413, body: { message: 'Request body too large: the limit is 1 MiB.' } };
    case 'PRECONDITION_FAILED':
      return { status: 412, body: { message: 'Precondition failed.' } };
    case 'RANGE_NOT_SATISFIABLE':
      return { status: 416, body: { message: 'Range not satisfiable.' } };
    case 'ROUTE_NOT_FOUND':
      return { status: 404, body: { message: 'Not found.' } };
    case 'UNAUTHENTICATED':
      return { status: 401, body: { message: 'Unauthenticated.' } };
    case 'FORBIDDEN':
      return { status: 403, body: { message: 'Forbidden.' } };
    case 'RATE_LIMITED':
      return {
        status: 429,
        body: { message: `Too many requests. See the API documentation at ${docsUrl}.` },
      };
    case 'SERVICE_UNAVAILABLE':
      return { status: 503, body: { message: 'Service unavailable.' } };
    case 'COMPANY_NOT_FOUND':
    case 'TOKEN_NOT_FOUND':
    case 'PRODUCT_NOT_FOUND':
    case 'WEBHOOK_NOT_FOUND':
    case 'DELIVERY_NOT_FOUND':
    case 'ORDER_NOT_FOUND':
      return { status: 404, body: { message } };
    case 'ORDER_CONFLICT':
    case 'DELIVERY_NOT_RETRYABLE':
    case 'IDEMPOTENCY_KEY_IN_USE':
      return { status: 409, body: { message } };
    case 'IDEMPOTENCY_KEY_REUSED':
      return { status: 422, body: { message } };
    case 'ORDER_CHANGED':
      return { status: 412, body: { message } };
    case 'COMMENT_VALIDATION_FAILED': {
      // Spec §4.5's own shape: each field maps to one string, not an array.
      const errors = Object.fromEntries(
        Object.entries(fieldErrors ?? {}).map(([field, [first]]) => [field, first]),
      );
      return { status: 400, body: { message, errors } };
    }
    case 'COMMENT_ORDER_NOT_FOUND':
      return { status: 404, body: { success: false, message } };
  }
}

export const SERVER_ERROR: ErrorResponse = { status: 500, body: { message: 'Server error.' } };

/** An error response decided by an earlier request and replayed as it was (an Idempotency-Key repeat). */
export class ReplayedErrorResponse extends Error {
  constructor(readonly response: ErrorResponse) {
    super(`Replayed ${response.status} response`);
    this.name = 'ReplayedErrorResponse';
  }
}
