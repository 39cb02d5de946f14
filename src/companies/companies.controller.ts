import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Actor } from '../kernel/access/actor';
import { CurrentActor, Roles } from '../kernel/access/access.decorators';
import { ApiFormats } from '../platform/formats/api-formats';
import { ApiErrorResponses, ApiPageResponse } from '../platform/openapi/openapi.decorators';
import { idParam } from '../platform/http/id-param.pipe';
import { type Page, pageWindow } from '../kernel/pagination';
import { CompanyNotFoundError } from './companies.errors';
import { CompaniesService } from './companies.service';
import { CompanyResponse, toCompanyResponse } from './dto/company.response';
import { CreateCompanyDto } from './dto/create-company.dto';
import { ListCompaniesQuery } from './dto/list-companies.query';

@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v2/admin/companies')
export class CompaniesController {
  constructor(
    private readonly companies: CompaniesService,
    private readonly formats: ApiFormats,
  ) {}

  /** One company, by id: its name and site, e.g. for a screen about its tokens or webhooks. */
  @Get(':id')
  @ApiOperation({ operationId: 'getCompany', summary: 'Get a company' })
  @ApiErrorResponses(401, 403, 404, 429)
  async get(@Param('id', idParam(() => new CompanyNotFoundError())) id: number): Promise<CompanyResponse> {
    return toCompanyResponse(await this.companies.get(id), this.formats);
  }

  /** Creates a partner company. */
  @Post()
  @ApiOperation({ operationId: 'createCompany', summary: 'Create a company' })
  @ApiErrorResponses(400, 401, 403, 413, 429)
  async create(@CurrentActor() actor: Actor, @Body() body: CreateCompanyDto): Promise<CompanyResponse> {
    return toCompanyResponse(await this.companies.create(actor, body), this.formats);
  }

  /** Lists companies by id, optionally filtered by name (contains, any case) and site; filters combine with AND. */
  @Get()
  @ApiOperation({ operationId: 'listCompanies', summary: 'List companies' })
  @ApiPageResponse(CompanyResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(@Query() query: ListCompaniesQuery, @Req() request: Request): Promise<Page<CompanyResponse>> {
    const { offset, limit } = pageWindow(query);
    const rows = await this.companies.list({ name: query.name, site: query.site }, offset, limit);
    return this.formats.page(
      rows.map((company) => toCompanyResponse(company, this.formats)),
      query,
      request,
    );
  }
}
