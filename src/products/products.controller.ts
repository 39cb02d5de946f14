import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Roles } from '../kernel/access/access.decorators';
import { ApiFormats } from '../platform/formats/api-formats';
import { ApiErrorResponses, ApiPageResponse } from '../platform/openapi/openapi.decorators';
import { PageQuery, pageJson, pageWindow } from '../kernel/pagination';
import { ProductResponse } from './dto/product.response';
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
  async list(
    @Query() query: PageQuery,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string> {
    const { offset, limit } = pageWindow(query);
    const page = this.formats.page(await this.products.listActiveJson(offset, limit), query, request);
    response.type('application/json');
    return pageJson(page);
  }
}
