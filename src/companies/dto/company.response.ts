import { ApiDateTime } from '../../kernel/openapi.formats';
import type { ApiFormats } from '../../platform/formats/api-formats';
import type { Company } from '../company.entity';

export class CompanyResponse {
  /** @example 1 */
  id!: number;
  /** @example "Demo Restaurants s.r.o." */
  name!: string;
  /** @example "SK" */
  site!: string;
  /** @example "2026-11-22T07:30" */
  @ApiDateTime()
  created_at!: string;
}

export function toCompanyResponse(company: Company, formats: ApiFormats): CompanyResponse {
  return {
    id: company.id,
    name: company.name,
    site: company.site,
    created_at: formats.dateTime(company.createdAt),
  };
}
