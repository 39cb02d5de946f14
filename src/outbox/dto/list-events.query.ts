import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';

export class ListEventsQuery {
  /**
   * The id of the last event you have processed; leave it out to start from your oldest event.
   * @example "evt_1042"
   */
  @ApiPropertyOptional({ maxLength: 22 })
  @IsOptional()
  @Matches(/^evt_[1-9]\d{0,17}$/, { message: 'The after must be an event id such as evt_1042.' })
  @IsString({ message: 'The after must be an event id such as evt_1042.' })
  after?: string;
}
