import { IDEMPOTENCY_KEY_PATTERN } from '../../idempotency/request-fingerprint';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from '../../platform/http/idempotency-headers';
import { IMPORT_CSV_COLUMNS } from '../import-file';

/** What the OpenAPI document says of the import routes beyond their DTOs. */
export const IMPORT_DOCS = {
  requestSchema: {
    type: 'string' as const,
    // The upload's bound (CONTRACT §4.11: 50 MiB); a longer one is a 400 naming the size.
    maxLength: 50 * 1024 * 1024,
    description:
      `text/csv: RFC 4180, UTF-8, a header row naming the columns ${IMPORT_CSV_COLUMNS.join(', ')} (country ` +
      'optional), one order per record. application/x-ndjson: one POST /order body (a JSON object) per line.',
    example: `${IMPORT_CSV_COLUMNS.join(',')}\nJana,Nováková,Bistro Group s.r.o.,jana@example.com,+421900123456,81101,Bratislava,Obchodná,12,,,,2,,bistro-12,device-secret,REGULAR,,M-4411,false,sk\n`,
  },
  idempotencyHeader: {
    name: IDEMPOTENCY_KEY_HEADER,
    required: false,
    description:
      'A key you choose (1–255 visible ASCII characters): within 24 hours, the same file (and dry_run) uploaded ' +
      'again under it returns the first import, with `Idempotent-Replayed: true`, and places nothing more; ' +
      'another file under it gets 422; a repeat while the first upload is still arriving gets 409.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN.source },
  },
  replayedHeader: {
    [REPLAYED_HEADER]: {
      description: 'true when this is the import an earlier upload with the same Idempotency-Key created.',
      schema: { type: 'string', enum: ['true'] },
    },
  },
  idParam: {
    name: 'id',
    description: 'The import id.',
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 2_147_483_647, example: 17 },
  },
  resultsResponse: {
    status: 200,
    description: 'One ImportResultResponse (JSON) per line, in line order (chunked).',
    content: {
      'application/x-ndjson': {
        schema: {
          type: 'string',
          description: 'One ImportResultResponse (components/schemas/ImportResultResponse) per line.',
          // What each line is (OpenAPI 3.2 names this itemSchema; 3.0 has no word for a stream of JSON values).
          'x-item-schema': { $ref: '#/components/schemas/ImportResultResponse' },
        },
        example:
          '{"line":1,"order_id":123}\n{"line":2,"errors":{"product_id":["The selected product id is invalid."]}}\n',
      },
    },
  },
};
