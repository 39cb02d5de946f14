import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsOptional, ValidateIf, ValidateNested } from 'class-validator';
import { ContainsFilter } from '../../kernel/contains-filter';
import { ApiBooleanInput } from '../../kernel/openapi.formats';
import { PageQuery } from '../../kernel/pagination';
import { RequiredText } from '../../kernel/required-text.validator';
import { toBoolean } from '../../kernel/transforms';
import { Transform } from 'class-transformer';

export class CreateVariationDto {
  /** @example "Large" */
  @RequiredText()
  name!: string;
}

export class CreateProductDto {
  /** @example "POS terminal" */
  @RequiredText()
  name!: string;

  /** Its variations, if orders must choose one (null or absent: none). @example [{"name": "Black"}, {"name": "White"}] */
  @ApiPropertyOptional({ type: () => [CreateVariationDto], nullable: true })
  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => CreateVariationDto)
  @IsArray({ message: 'The variations must be a list.' })
  variations?: CreateVariationDto[];
}

/** Absent means "leave it": null is a value, and refused by the field's rules (the columns are NOT NULL). */
const unlessAbsent = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

export class UpdateProductDto {
  /** A new name. */
  @unlessAbsent()
  @RequiredText()
  name?: string;

  /** false hides the product from partners and refuses new orders for it; existing orders keep it. */
  @unlessAbsent()
  @ApiBooleanInput()
  @Transform(toBoolean)
  @IsBoolean({ message: 'The active must be true or false.' })
  active?: boolean;
}

/** The admin product list's filters, all optional, combined with AND. */
export class ListAdminProductsQuery extends PageQuery {
  @ContainsFilter('Only the products whose name contains this text, whatever its case.', 'terminal')
  name?: string;

  /** true: only active products; false: only inactive ones. */
  @ApiBooleanInput()
  @IsBoolean({ message: 'The active filter must be true or false.' })
  @Transform(toBoolean)
  @IsOptional()
  active?: boolean;
}
