import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { IsApiDateTime } from '../../common/api-datetime.validator';
import { ROLES, type Role } from '../../auth/principal';
import { toInteger } from '../../common/transforms';

export class CreateTokenDto {
  /** partner: the partner API of one company; admin: the admin API; logistics: the logistics API. */
  @IsIn(ROLES, { message: `The role must be one of ${ROLES.join(', ')}.` })
  role!: Role;

  /**
   * The person the token is issued to; every change made with it is recorded under this name.
   * @example "alice"
   */
  @IsString({ message: 'The user name must be a string.' })
  @IsNotEmpty({ message: 'The user name field is required.' })
  @MaxLength(255, { message: 'The user name may not be greater than 255 characters.' })
  user_name!: string;

  /** The company of a partner token; must be left out for admin and logistics tokens. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'The company id must be an integer.' })
  @Min(1, { message: 'The company id must be an integer.' })
  company_id?: number | null;

  /**
   * When the token stops working (service time zone); none by default.
   * @example "2027-12-31T23:59"
   */
  @IsOptional()
  @IsApiDateTime()
  expires_at?: string | null;
}
