import { Transform } from 'class-transformer';
import { IsBoolean, IsDefined, IsIn, IsOptional } from 'class-validator';
import { RequiredText } from '../../kernel/required-text.validator';
import { IsApiDateTime } from '../../kernel/api-datetime.validator';
import { ROLES, type Role } from '../../kernel/access/principal';
import { DbInteger } from '../../kernel/db-integer.validator';
import { toBoolean, toInteger } from '../../kernel/transforms';
import { ApiBooleanInput, ApiIntegerInput } from '../../kernel/openapi.formats';

export class CreateTokenDto {
  /** partner: the partner API of one company; admin: the admin API; logistics: the logistics API. */
  @IsIn(ROLES, { message: `The role must be one of ${ROLES.join(', ')}.` })
  @IsDefined({ message: 'The role field is required.' })
  role!: Role;

  /**
   * The person the token is issued to; every change made with it is recorded under this name.
   * @example "alice"
   */
  @RequiredText()
  user_name!: string;

  /** The company of a partner token; must be left out for admin and logistics tokens. */
  @IsOptional()
  @ApiIntegerInput({ nullable: true })
  @Transform(toInteger)
  @DbInteger('No company has this id.')
  company_id?: number | null;

  /**
   * When the token stops working (service time zone); none by default.
   * @example "2027-12-31T23:59"
   */
  @IsOptional()
  @IsApiDateTime()
  expires_at?: string | null;

  /**
   * A read-only partner token (like Stripe's restricted keys): it lists, reads and exports orders, lists
   * products and follows the events feed, and every write it attempts is refused with 403, idempotent
   * replays and the sandbox included. Partner tokens only; default false.
   * @example true
   */
  @IsOptional()
  @ApiBooleanInput({ nullable: true })
  @IsBoolean({ message: 'The read only field must be true or false.' })
  @Transform(toBoolean)
  read_only?: boolean | null;
}
