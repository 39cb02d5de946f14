import { IsOptional } from 'class-validator';
import { IsApiDateTime } from '../../kernel/api-datetime.validator';

export class RollTokenDto {
  /**
   * Until when the secret being replaced keeps working (service time zone): at most 7 days from now; a time
   * that is not after now ends it at once. Default: 24 hours from now.
   * @example "2027-01-08T12:00"
   */
  @IsOptional()
  @IsApiDateTime()
  previous_expires_at?: string | null;
}
