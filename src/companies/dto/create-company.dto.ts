import { Transform } from 'class-transformer';
import { IsDefined, IsString, Matches } from 'class-validator';
import { ApiProperty } from '@nestjs/swagger';
import { RequiredText } from '../../kernel/required-text.validator';

export class CreateCompanyDto {
  /** The company's name. */
  @RequiredText()
  name!: string;

  /**
   * The company's market: a two-letter code, any case in, stored upper case. Orders of an SK, CZ or PL company
   * limit `note` and `details` to 50 characters.
   * @example "SK"
   */
  @ApiProperty({ pattern: '^[A-Za-z]{2}$', maxLength: 2 })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toUpperCase() : value))
  @Matches(/^[A-Z]{2}$/, { message: 'The site must be a two-letter market code such as SK.' })
  @IsString({ message: 'The site must be a string.' })
  @IsDefined({ message: 'The site field is required.' })
  site!: string;
}
