import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { ContainsFilter } from '../../kernel/contains-filter';
import { PageQuery } from '../../kernel/pagination';

export class ListCompaniesQuery extends PageQuery {
  @ContainsFilter('Only the companies whose name contains this text, whatever its case.', 'demo')
  name?: string;

  @ApiPropertyOptional({
    description: 'Only the companies of this site (two-letter market code), whatever its case.',
    example: 'SK',
    pattern: '^[A-Za-z]{2}$',
    minLength: 2,
    maxLength: 2,
  })
  @IsOptional()
  @IsString({ message: 'The site filter must be a two-letter market code such as SK.' })
  @Matches(/^[A-Za-z]{2}$/, { message: 'The site filter must be a two-letter market code such as SK.' })
  site?: string;
}
