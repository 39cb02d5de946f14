import { declareErrorCodes } from '../../kernel/domain-error';

/** The codes of the HTTP layer and of the statuses Nest or Express raise on their own (CONTRACT §2). */
declareErrorCodes({
  BAD_REQUEST: { status: 400, body: () => ({ message: 'Bad request.' }) },
  MALFORMED_JSON: {
    status: 400,
    body: () => ({ message: 'Bad request.', errors: { body: ['Malformed JSON.'] } }),
  },
  NESTED_TOO_DEEPLY: {
    status: 400,
    body: () => ({ message: 'Bad request.', errors: { body: ['Nested too deeply.'] } }),
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    body: () => ({ message: 'Unsupported media type: send the body as application/json (UTF-8).' }),
  },
  REQUEST_TIMEOUT: {
    status: 408,
    body: () => ({ message: 'Request timeout: the body did not arrive in time.' }),
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    body: () => ({ message: 'Request body too large: the limit is 1 MiB.' }),
  },
  PRECONDITION_FAILED: { status: 412, body: () => ({ message: 'Precondition failed.' }) },
  RANGE_NOT_SATISFIABLE: { status: 416, body: () => ({ message: 'Range not satisfiable.' }) },
  ROUTE_NOT_FOUND: { status: 404, body: () => ({ message: 'Not found.' }) },
  UNAUTHENTICATED: { status: 401, body: () => ({ message: 'Unauthenticated.' }) },
  FORBIDDEN: { status: 403, body: () => ({ message: 'Forbidden.' }) },
  RATE_LIMITED: {
    status: 429,
    body: ({ docsUrl }) => ({ message: `Too many requests. See the API documentation at ${docsUrl}.` }),
  },
  SERVICE_UNAVAILABLE: { status: 503, body: () => ({ message: 'Service unavailable.' }) },
});
