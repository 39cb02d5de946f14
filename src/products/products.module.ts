import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { declareApiTag } from '../platform/openapi/document-contributions';
import { AdminProductsController } from './admin-products.controller';
import { ProductsController } from './products.controller';
import { ProductsRepository } from './products.repository';
import { ProductsService } from './products.service';
import { OwnsEntities } from '../platform/database/module-entities';
import { ProductVariation } from './product-variation.entity';
import { Product } from './product.entity';

@OwnsEntities(Product, ProductVariation)
@Module({
  imports: [AuditModule],
  controllers: [ProductsController, AdminProductsController],
  providers: [ProductsRepository, ProductsService],
  exports: [ProductsService],
})
export class ProductsModule {
  constructor() {
    declareApiTag({
      name: 'products',
      description: 'Partner API: the products that can be ordered.',
      rank: 20,
    });
  }
}
