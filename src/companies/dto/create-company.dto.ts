import { Transform } from 'class-transformer';
import { IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';

export class CreateCompanyDto {
  /** The company's name. */
  @IsString({ message: 'The name must be a string.' })
  @IsNotEmpty({ message: 'The name field is required.' })
  @MaxLength(255, { message: 'The name may not be greater than 255 characters.' })
  name!: string;

  /**
   * The company's market: a two-letter code, stored upper case. Orders of an SK, CZ or PL company limit `note`
   * and `details` to 50 characters.
   * @example "SK"
   */
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toUpperCase() : value))
  @IsString({ message: 'The site must be a string.' })
  @Matches(/^[A-Z]{2}$/, { message: 'The site must be a two-letter market code such as SK.' })
  site!: string;
}
