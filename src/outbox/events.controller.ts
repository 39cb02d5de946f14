import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CallerCompany, Roles } from '../kernel/access/access.decorators';
import { ApiErrorResponses } from '../platform/openapi/openapi.decorators';
import { EventListResponse, toEventResponse } from './dto/event-feed.response';
import { ListEventsQuery } from './dto/list-events.query';
import { EventsService } from './events.service';

@ApiTags('events')
@ApiBearerAuth()
@Roles('partner')
@Controller('api/v2')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  /**
   * Your company's events (CONTRACT §4.8), the same ones webhooks deliver, oldest first and at most 100: to
   * catch up after missed webhooks, or instead of them. Keep the last id you processed and pass it as `after`.
   * An event appears here once every transaction that started before it has finished (normally at once).
   */
  @Get('events')
  @ApiOperation({ operationId: 'listEvents', summary: 'List events' })
  @ApiOkResponse({
    type: EventListResponse,
    example: {
      data: [
        {
          id: 'evt_1042',
          type: 'order.placed',
          timestamp: '2026-11-22T07:30:12.345Z',
          data: {
            order_id: 123,
            order_ref: 'SK-0000123',
            state: 'PLACED',
            order_type: 'REGULAR',
            test: false,
          },
        },
      ],
    },
  })
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @CallerCompany() companyId: number,
    @Query() query: ListEventsQuery,
  ): Promise<EventListResponse> {
    const events = await this.events.feed(companyId, query.after);
    return { data: events.map(toEventResponse) };
  }
}
