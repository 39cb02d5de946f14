import { IsIn, IsOptional } from 'class-validator';
import { PageQuery } from '../../../kernel/pagination';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ORDER_STATES, type OrderState } from '../../order-state';

export class QueueQuery extends PageQuery {
  /** The state to list, PLACED (the work to pick up) by default. @example "PLACED" */
  @ApiPropertyOptional({ enum: ORDER_STATES, default: 'PLACED' })
  @IsIn(ORDER_STATES, { message: `The selected state is invalid: use ${ORDER_STATES.join(', ')}.` })
  @IsOptional()
  state: OrderState = 'PLACED';
}
