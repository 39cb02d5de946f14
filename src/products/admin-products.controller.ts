import { Body, Controller, Get, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Actor } from '../kernel/access/actor';
import { CurrentActor, Roles } from '../kernel/access/access.decorators';
import { idParam } from '../platform/http/id-param.pipe';
import { ApiFormats } from '../platform/formats/api-formats';
import { ApiErrorResponses, ApiPageResponse } from '../platform/openapi/openapi.decorators';
import { type Page, pageWindow } from '../kernel/pagination';
import {
  CreateProductDto,
  CreateVariationDto,
  ListAdminProductsQuery,
  UpdateProductDto,
} from './dto/product.dto';
import { AdminProductResponse, toAdminProductResponse } from './dto/product.response';
import { ProductNotFoundError } from './products.errors';
import { ProductsService } from './products.service';

const productId = () => idParam(() => new ProductNotFoundError());

@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v2/admin/products')
export class AdminProductsController {
  constructor(
    private readonly products: ProductsService,
    private readonly formats: ApiFormats,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listAdminProducts',
    summary: 'Lists every product, inactive ones too',
    description:
      'Every product by id, with its variations and whether it is active (partners see only active ones); ' +
      'filtered by name (contains, any case) and active, combined with AND.',
  })
  @ApiPageResponse(AdminProductResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(
    @Query() query: ListAdminProductsQuery,
    @Req() request: Request,
  ): Promise<Page<AdminProductResponse>> {
    const { offset, limit } = pageWindow(query);
    const rows = await this.products.listAll({ name: query.name, active: query.active }, offset, limit);
    return this.formats.page(rows.map(toAdminProductResponse), query, request);
  }

  /** Creates a product, with its variations if it has any. */
  @Post()
  @ApiOperation({ operationId: 'createProduct', summary: 'Create a product' })
  @ApiErrorResponses(400, 401, 403, 413, 429)
  async create(@CurrentActor() actor: Actor, @Body() body: CreateProductDto): Promise<AdminProductResponse> {
    return toAdminProductResponse(await this.products.create(actor, body));
  }

  /** Renames a product, or deactivates (or reactivates) it. */
  @Patch(':id')
  @ApiOperation({ operationId: 'updateProduct', summary: 'Rename, deactivate or reactivate a product' })
  @ApiErrorResponses(400, 401, 403, 404, 413, 429)
  async update(
    @CurrentActor() actor: Actor,
    @Param('id', productId()) id: number,
    @Body() body: UpdateProductDto,
  ): Promise<AdminProductResponse> {
    return toAdminProductResponse(await this.products.update(actor, id, body));
  }

  /** Adds a variation to a product. */
  @Post(':id/variations')
  @ApiOperation({ operationId: 'addProductVariation', summary: 'Add a variation to a product' })
  @ApiErrorResponses(400, 401, 403, 404, 413, 429)
  async addVariation(
    @CurrentActor() actor: Actor,
    @Param('id', productId()) id: number,
    @Body() body: CreateVariationDto,
  ): Promise<AdminProductResponse> {
    return toAdminProductResponse(await this.products.addVariation(actor, id, body.name));
  }
}
