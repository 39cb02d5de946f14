import { IF_MATCH_PATTERN } from '../../kernel/if-match';
import { HEADER_MAX_LENGTH } from '../../kernel/openapi.formats';
import { idParam } from '../../platform/http/id-param.pipe';
import { OrderNotFoundError } from '../orders.errors';

/** The order id of a route: not a valid id is a missing order (404). */
export const orderIdParam = () => idParam(() => new OrderNotFoundError());

/** Optional optimistic concurrency on writes: the ETag the caller read. */
export const IF_MATCH = {
  name: 'If-Match',
  required: false,
  description:
    'The ETag of the order as you read it ("3"); if the order changed since, the write is refused with 412. ' +
    '`*` (or no header) writes whatever the version.',
  schema: { type: 'string', maxLength: HEADER_MAX_LENGTH, pattern: IF_MATCH_PATTERN.source, example: '"3"' },
};
