import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { Actor } from '../../kernel/access/actor';
import { CallerCompany, CurrentActor, Roles } from '../../kernel/access/access.decorators';
import { setVersionEtag } from '../../kernel/if-match';
import { IfMatchVersion } from '../../platform/http/if-match.decorator';
import { ApiErrorResponses, ETAG_HEADER } from '../../platform/openapi/openapi.decorators';
import { Idempotent } from '../../idempotency/idempotency.interceptor';
import { OrderResponse } from '../dto/order.response';
import { IF_MATCH, orderIdParam } from './order-params.decorators';
import { SimulateOrderDto } from './dto/simulate-order.dto';
import { SandboxService } from '../application/sandbox.service';

/** The partner's sandbox (CONTRACT §4.9): its own TEST orders, moved through the lifecycle on request. */
@ApiTags('orders')
@ApiBearerAuth()
@Roles('partner')
@Controller('api/v2')
export class SandboxController {
  constructor(private readonly sandbox: SandboxService) {}

  /**
   * Moves one of your TEST orders to `to`, step by step, recording what logistics would report on the way, so
   * the events feed and your webhooks receive exactly the sequence a real order produces. The order stays a
   * test order: logistics never sees it. A non-test order, or a move the state machine does not allow from
   * the order's state (backwards, or out of COMPLETED or CANCELLED), is a 409.
   */
  @Post('order/:id/simulate')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'simulateOrder',
    summary: 'Move a test order through its lifecycle (sandbox)',
  })
  @ApiBody({ type: SimulateOrderDto })
  @ApiOkResponse({ type: OrderResponse, headers: ETAG_HEADER })
  @ApiHeader(IF_MATCH)
  @Idempotent()
  @ApiErrorResponses(400, 401, 403, 404, 409, 412, 413, 422, 429)
  async simulate(
    @CurrentActor() actor: Actor,
    @CallerCompany() companyId: number,
    @Param('id', orderIdParam()) id: number,
    @Body() body: SimulateOrderDto,
    @IfMatchVersion() version: number | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<OrderResponse> {
    const order = await this.sandbox.simulate(actor, companyId, id, body.to, version);
    setVersionEtag(response, order.version);
    return order.body;
  }
}
