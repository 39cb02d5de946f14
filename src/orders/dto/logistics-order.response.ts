import { OrderResponse } from './order.response';

/** An order as logistics sees it: the partner's order object, plus whose it is and its version (the ETag). */
export class LogisticsOrderResponse extends OrderResponse {
  /** @example 1 */
  company_id!: number;
  /** Send it back as If-Match to write only on what you read. @example 3 */
  version!: number;
}
