import { Injectable } from '@nestjs/common';
import { toDto } from '../../kernel/known-fields';
import { characterCount } from '../../kernel/characters';
import type { EntityManager } from 'typeorm';
import { validateSync } from 'class-validator';
import { type FieldErrors, ValidationFailedError } from '../../kernel/domain-error';
import { toFieldErrors } from '../../kernel/validation';
import { ProductsService } from '../../products/products.service';
import { PlaceOrderDto } from '../http/dto/place-order.dto';
import type { OrderFieldValues } from '../domain/order-fields';
import { orderSite, originalOrderError, textLimits, variationError } from '../order-rules';
import { OrdersRepository } from '../persistence/orders.repository';

export interface OrderContext {
  /** The transaction to read in, when validating inside one (an update holds the order's row lock). */
  manager?: EntityManager;
  companyId: number;
  companySite: string;
  /** The order being updated: it cannot be its own original order. */
  orderId?: number;
}

/** A candidate order that passed every placement rule, and the site those rules used. */
export interface ValidOrder {
  values: PlaceOrderDto;
  site: string;
}

/**
 * The placement rules of spec §2.1/§4.1 and CONTRACT §3, for a new order or an order merged with an update.
 * Every failing field is reported at once, with one message each.
 */
@Injectable()
export class OrderValidator {
  constructor(
    private readonly products: ProductsService,
    private readonly orders: OrdersRepository,
  ) {}

  /** `candidate` holds placement fields only (OrdersService picks them from the body). */
  async validate(candidate: Partial<OrderFieldValues>, context: OrderContext): Promise<ValidOrder> {
    const values = toDto(PlaceOrderDto, candidate);
    const errors: FieldErrors = toFieldErrors(validateSync(values, { stopAtFirstError: true }));
    const site = orderSite(errors.country ? null : values.country, context.companySite);
    this.checkTextLengths(values, site, errors);
    await this.checkProduct(values, errors, context.manager);
    await this.checkOriginalOrder(values, context, errors);
    if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
    return { values, site };
  }

  private checkTextLengths(values: PlaceOrderDto, site: string, errors: FieldErrors): void {
    const limits = textLimits(site);
    for (const field of ['note', 'details'] as const) {
      const text = values[field];
      if (!errors[field] && typeof text === 'string' && characterCount(text) > limits[field]) {
        errors[field] = [
          `The ${field} may not be greater than ${limits[field]} characters on ${site} orders.`,
        ];
      }
    }
  }

  private async checkProduct(
    values: PlaceOrderDto,
    errors: FieldErrors,
    manager?: EntityManager,
  ): Promise<void> {
    if (errors.product_id) return;
    const product = await this.products.findOrderable(values.product_id, manager);
    if (!product) {
      errors.product_id = ['The selected product id is invalid.'];
      return;
    }
    if (errors.product_variation_id) return;
    const message = variationError(
      product.variations.map((variation) => variation.id),
      values.product_variation_id ?? null,
    );
    if (message) errors.product_variation_id = [message];
  }

  private async checkOriginalOrder(
    values: PlaceOrderDto,
    context: OrderContext,
    errors: FieldErrors,
  ): Promise<void> {
    if (errors.order_type || errors.original_order_id) return;
    const id = values.original_order_id ?? null;
    const original =
      id === null
        ? undefined
        : id === context.orderId
          ? null
          : await this.orders.findOfCompany(id, context.companyId, context.manager);
    const message = originalOrderError(values.order_type, original);
    if (message) errors.original_order_id = [message];
  }
}
