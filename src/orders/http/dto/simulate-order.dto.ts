import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsIn } from 'class-validator';
import { SIMULATION_TARGETS, type SimulationTarget } from '../../domain/simulation';

export class SimulateOrderDto {
  @ApiProperty({
    enum: SIMULATION_TARGETS,
    example: 'DELIVERED',
    description:
      'The state to move the test order to. The steps on the way are recorded one by one: SENT_TO_LOGISTICS ' +
      '(sent), DISPATCHED (tracking TEST-<order id> with a dispatch date), DELIVERED (its delivery date and ' +
      'tracking link), COMPLETED (final completion date), each with a detailed status; CANCELLED is the ' +
      'cancel from TEST, and a delivery error with resolution Cancel once sent.',
  })
  @IsIn(SIMULATION_TARGETS, { message: `The to field must be one of ${SIMULATION_TARGETS.join(', ')}.` })
  @IsDefined({ message: 'The to field is required.' })
  to!: SimulationTarget;
}
