import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Roles } from '../auth/auth.decorators';
import { ApiFormats } from '../common/api-formats';
import { ApiErrorResponses, ApiPageResponse } from '../common/openapi.decorators';
import { type Page, PageQuery, pageWindow } from '../common/pagination';
import { ProductResponse, toProductResponse } from './dto/product.response';
import { ProductsService } from './products.service';

@ApiTags('products')
@ApiBearerAuth()
@Roles('partner')
@Controller('api/v2/product')
export class ProductsController {
  constructor(
    private readonly products: ProductsService,
    private readonly formats: ApiFormats,
  ) {}

  /** The products that can be ordered, by id, with their variations. */
  @Get()
  @ApiOperation({ operationId: 'listProducts', summary: 'List products' })
  @ApiPageResponse(ProductResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(@Query() query: PageQuery, @Req() request: Request): Promise<Page<ProductResponse>> {
    const { offset, limit } = pageWindow(query);
    const rows = await this.products.listActive(offset, limit);
    return this.formats.page(rows.map(toProductResponse), query, request);
  }
}
