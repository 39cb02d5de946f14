import type { OrderType } from './order-state';

/** Markets whose orders limit `note` and `details` to 50 characters (spec §2.1). */
const SHORT_TEXT_SITES = ['SK', 'CZ', 'PL'];
const SHORT_TEXT_LIMIT = 50;

/** CONTRACT §3: the site of an order is upper(country) when given, else its company's site. */
export function orderSite(country: string | null | undefined, companySite: string): string {
  return country ? country.toUpperCase() : companySite;
}

/** The most characters `note` and `details` may have on a site. */
export function textLimits(site: string): { note: number; details: number } {
  return SHORT_TEXT_SITES.includes(site)
    ? { note: SHORT_TEXT_LIMIT, details: SHORT_TEXT_LIMIT }
    : { note: 255, details: 65_535 };
}

/** What the rules need to know of the order an EXCHANGE or RETURN refers to. */
export interface OriginalOrder {
  orderType: OrderType;
}

/**
 * CONTRACT §3: REGULAR names no original order; EXCHANGE and RETURN must name one of the caller's company:
 * an EXCHANGE a REGULAR or EXCHANGE order, a RETURN any order that is not a RETURN.
 * `original` is undefined when no id was given, null when the id names no order of the company.
 */
export function originalOrderError(
  orderType: OrderType,
  original: OriginalOrder | null | undefined,
): string | null {
  if (orderType === 'REGULAR') {
    return original === undefined ? null : 'The original order id must be empty for a REGULAR order.';
  }
  if (original === undefined) return `The original order id field is required for a ${orderType} order.`;
  if (original === null) return 'The selected original order id is invalid.';
  if (orderType === 'EXCHANGE' && original.orderType === 'RETURN') {
    return 'An EXCHANGE must refer to a REGULAR or EXCHANGE order.';
  }
  if (orderType === 'RETURN' && original.orderType === 'RETURN')
    return 'A RETURN cannot refer to another RETURN.';
  return null;
}

/**
 * Spec §4.1 and CONTRACT §3: a product with variations needs one of them; a product without any takes none.
 */
export function variationError(variationIds: readonly number[], chosen: number | null): string | null {
  if (variationIds.length === 0) {
    return chosen === null ? null : 'The product has no variations: leave the product variation id out.';
  }
  if (chosen === null) return 'The product variation id field is required when the product has variations.';
  return variationIds.includes(chosen)
    ? null
    : 'The selected product variation id is not a variation of the product.';
}

/** order_ref: the site, a dash, and the order id zero-padded to 7 digits (SK-0000123). */
export function orderRef(site: string, orderId: number): string {
  return `${site}-${String(orderId).padStart(7, '0')}`;
}

/** The same as an SQL expression on the order row alias `o` (lpad would cut an id longer than 7 digits). */
export const orderRefSql = (o: string): string =>
  `${o}.site || '-' || lpad(${o}.id::text, greatest(7, length(${o}.id::text)), '0')`;
