/** What several benches share: a placement body and the nearest-rank percentile of their latencies. */

/** A placement of `productId`, the `n`th of a bench whose orders are named `label` (`Import7`, `import7@…`). */
export const orderBody = (productId: number, n: number, label: string) => ({
  first_name: 'Eva',
  last_name: `${label}${n}`,
  consignee: 'Bench Bistro',
  email: `${label.toLowerCase()}${n}@example.com`,
  phone: '+43660000000',
  zip: '1010',
  city: 'Wien',
  street: 'Ring',
  house_number: String(n),
  product_id: productId,
  login: 'device',
  password: 'device-secret',
  order_type: 'REGULAR',
  merchant_id: 'M-1',
});

/** The value below which `share` of the sorted values lie (nearest rank); NaN for none. */
export function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
}
