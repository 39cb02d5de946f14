import { OrderResponse } from './order.response';

/** An order as logistics sees it: the partner's order object (its `version` the ETag), plus whose it is. */
export class LogisticsOrderResponse extends OrderResponse {
  /** @example 1 */
  company_id!: number;
}
