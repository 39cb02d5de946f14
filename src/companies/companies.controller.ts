import { Body, Controller, Get, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Actor } from '../kernel/access/actor';
import { CurrentActor, Roles } from '../kernel/access/access.decorators';
import { ApiFormats } from '../platform/formats/api-formats';
import { ApiErrorResponses, ApiPageResponse } from '../platform/openapi/openapi.decorators';
import { type Page, PageQuery, pageWindow } from '../kernel/pagination';
import { CompaniesService } from './companies.service';
import { CompanyResponse, toCompanyResponse } from './dto/company.response';
import { CreateCompanyDto } from './dto/create-company.dto';

@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v2/admin/companies')
export class CompaniesController {
  constructor(
    private readonly companies: CompaniesService,
    private readonly formats: ApiFormats,
  ) {}

  /** Creates a partner company. */
  @Post()
  @ApiOperation({ operationId: 'createCompany', summary: 'Create a company' })
  @ApiErrorResponses(400, 401, 403, 413, 429)
  async create(@CurrentActor() actor: Actor, @Body() body: CreateCompanyDto): Promise<CompanyResponse> {
    return toCompanyResponse(await this.companies.create(actor, body), this.formats);
  }

  /** Lists companies by id. */
  @Get()
  @ApiOperation({ operationId: 'listCompanies', summary: 'List companies' })
  @ApiPageResponse(CompanyResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(@Query() query: PageQuery, @Req() request: Request): Promise<Page<CompanyResponse>> {
    const { offset, limit } = pageWindow(query);
    const rows = await this.companies.list(offset, limit);
    return this.formats.page(
      rows.map((company) => toCompanyResponse(company, this.formats)),
      query,
      request,
    );
  }
}
