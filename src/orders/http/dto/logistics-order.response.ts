import type { ApiFormats } from '../../../platform/formats/api-formats';
import { OrderResponse } from '../../dto/order.response';
import { withCredentials } from '../../persistence/order-json';
import type { OrderWithChildren } from '../../application/orders.service';

/** An order as logistics sees it: the partner's order object, plus whose it is and its version (the ETag). */
export class LogisticsOrderResponse extends OrderResponse {
  /** @example 1 */
  company_id!: number;
  /** Send it back as If-Match to write only on what you read. @example 3 */
  version!: number;
}

export function toLogisticsOrder(entry: OrderWithChildren, formats: ApiFormats): LogisticsOrderResponse {
  return { ...withCredentials(entry, formats), company_id: entry.company_id, version: entry.version };
}
