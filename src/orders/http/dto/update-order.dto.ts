import { PartialType } from '@nestjs/swagger';
import { PlaceOrderDto } from './place-order.dto';

/** Any non-empty subset of the placement fields; the order merged with it must pass every placement rule. */
export class UpdateOrderDto extends PartialType(PlaceOrderDto) {}
