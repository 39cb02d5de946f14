import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ORDER_COMMENTS_FIELD } from '../../comments/order-view.comments';
import { ORDER_CSV_COLUMNS, ORDER_FIELDS } from '../domain/order-view';
import { orderJsonTextSelect } from './order-json';
import { contributeToOrderView } from './order-view';

/**
 * A statement as checked in under queries/: a change to the order's SQL shows up in review as SQL. A change
 * that is meant rewrites them: `UPDATE_SQL_SNAPSHOTS=1 npx jest src/orders/persistence/order-view.spec.ts`.
 */
function expectCheckedIn(file: string, statement: string): void {
  const path = join(__dirname, 'queries', file);
  if (process.env.UPDATE_SQL_SNAPSHOTS === '1') writeFileSync(path, `${statement}\n`);
  expect(statement).toBe(readFileSync(path, 'utf8').trimEnd());
}

describe('the order view', () => {
  beforeAll(() => contributeToOrderView('comments', ORDER_COMMENTS_FIELD));

  it("keeps spec §2.3's field order, then the contract's extra fields", () => {
    const inSpec = [
      'order_id',
      'order_ref',
      'created_at',
      'first_name',
      'last_name',
      'consignee',
      'email',
      'phone',
      'zip',
      'city',
      'street',
      'house_number',
      'floor',
      'door',
      'opening_hours',
      'product_id',
      'product_variation_id',
      'login',
      'password',
      'final_completion_date',
      'order_type',
      'original_order_id',
      'trackings',
      'detailed_status',
      'serial_number',
      'delivery_errors',
      'merchant_id',
      'state',
      'editable',
      'test',
      'country',
      'note',
      'details',
      'corrected_order_ID',
      'oms_user_id',
      'retail',
      'dinein',
      'shop_number',
      'updated_at',
      'version',
    ];
    // A field added since may stand anywhere; the pinned statements below show where.
    expect(ORDER_FIELDS.filter((field) => inSpec.includes(field))).toEqual(inSpec);
  });

  it("gives the CSV export CONTRACT §4.10's columns", () => {
    expect(ORDER_CSV_COLUMNS).toEqual([
      ...ORDER_FIELDS.slice(0, ORDER_FIELDS.indexOf('trackings')),
      'serial_number',
      'merchant_id',
      'state',
      'test',
      'tracking_numbers',
      'delivered_at',
      'updated_at',
      'version',
    ]);
  });

  it('builds the prepared read of one order as checked in', () => {
    expectCheckedIn(
      'order-text-of-company.sql',
      `SELECT ${orderJsonTextSelect('o', '$3', 'comments')} FROM orders o WHERE o.id = $1 AND o.company_id = $2`,
    );
  });

  it('builds a list item as checked in, its comments under partner_comments', () => {
    expectCheckedIn('order-list-item.sql', orderJsonTextSelect('p', '$4', 'partner_comments'));
  });
});
