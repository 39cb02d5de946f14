import { jsonArraySql, type OrderViewContribution } from '../orders/persistence/order-view';

/** The comments module's field of the order object: the order's comments, oldest first. */
export const ORDER_COMMENTS_FIELD: OrderViewContribution = (o, at) =>
  jsonArraySql(
    [
      ['id', 'c.id'],
      ['partner_comment', 'c.partner_comment'],
      ['user_name', 'c.user_name'],
      ['created_at', at('c.created_at')],
      ['updated_at', at('c.updated_at')],
    ],
    'order_comments',
    'c',
    `c.order_id = ${o}.id`,
    'c.id',
  );
