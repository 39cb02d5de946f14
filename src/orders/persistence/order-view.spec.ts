import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ORDER_COMMENTS_FIELD } from '../../comments/order-view.comments';
import { orderJsonTextSelect } from './order-json';
import { contributeToOrderView, ORDER_CSV_COLUMNS, ORDER_FIELDS } from './order-view';

/** A statement as checked in under queries/: a change to the order's SQL shows up in review as SQL. */
const checkedIn = (file: string) => readFileSync(join(__dirname, 'queries', file), 'utf8').trimEnd();

describe('the order view', () => {
  beforeAll(() => contributeToOrderView('comments', ORDER_COMMENTS_FIELD));

  it("keeps spec §2.3's field order, then the contract's extra fields", () => {
    expect(ORDER_FIELDS).toEqual([
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
    ]);
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
    expect(
      `SELECT ${orderJsonTextSelect('o', '$3', 'comments')} FROM orders o WHERE o.id = $1 AND o.company_id = $2`,
    ).toBe(checkedIn('order-text-of-company.sql'));
  });

  it('builds a list item as checked in, its comments under partner_comments', () => {
    expect(orderJsonTextSelect('p', '$4', 'partner_comments')).toBe(checkedIn('order-list-item.sql'));
  });
});
