import { declareEventTypes } from '../../outbox/event-catalog';
import type { EventDraft } from '../../outbox/event-types';
import { orderRef, orderRefSql } from '../order-rules';
import type { OrderState, OrderType } from '../order-state';
import { ORDER_EVENT_SCHEMAS, type OrderEventType } from './event.response';

/** What an order event is about, in the outbox. */
export const ORDER_SUBJECT_TYPE = 'order';

export type { EventDraft };

/** The order's event types (CONTRACT §5), declared to the outbox: events about an `order`. */
const ORDER_EVENTS = declareEventTypes(ORDER_SUBJECT_TYPE, ORDER_EVENT_SCHEMAS);
export type { OrderEventType };

declare module '../../outbox/event-types' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface DeclaredEventTypes extends Record<OrderEventType, true> {}
}

/** An order event about to be written; its data never carries device credentials. */
type OrderEventDraft = EventDraft<OrderEventType>;

/** The order as it is once the change is applied. */
export interface OrderAfterChange {
  id: number;
  site: string;
  state: OrderState;
}

/** What every event's data starts with: which order, and the state it is in after the change. */
const about = (order: OrderAfterChange) => ({
  order_id: order.id,
  order_ref: orderRef(order.site, order.id),
  state: order.state,
});

/**
 * SQL: the data of `orderEvents.placed` for the order row alias `o`, for a placement that writes its event in
 * the statement that inserts the order. `row_to_json` of these named columns is the compact text JSON.stringify
 * writes for the same object, keys in the same order.
 */
export const placedDataSql = (o: string): string =>
  `(SELECT row_to_json(d) FROM (SELECT ${o}.id AS order_id, ${orderRefSql(o)} AS order_ref, ${o}.state AS state,
     ${o}.order_type AS order_type, ${o}.test AS test) d)`;

/** The event of each kind of change (CONTRACT §5); nested objects have the order response's shapes. */
export const orderEvents = {
  placed: (order: OrderAfterChange & { orderType: OrderType; test: boolean }): OrderEventDraft =>
    ORDER_EVENTS.draft('order.placed', { ...about(order), order_type: order.orderType, test: order.test }),
  /** Field names only, never values. */
  updated: (order: OrderAfterChange, changedFields: string[]): OrderEventDraft =>
    ORDER_EVENTS.draft('order.updated', {
      ...about(order),
      changed_fields: [...new Set(changedFields)].sort(),
    }),
  stateChanged: (order: OrderAfterChange, previousState: OrderState): OrderEventDraft =>
    ORDER_EVENTS.draft('order.state_changed', { ...about(order), previous_state: previousState }),
  comment: (order: OrderAfterChange, userName: string, replaced: boolean): OrderEventDraft =>
    ORDER_EVENTS.draft('order.comment', { ...about(order), user_name: userName, replaced }),
  tracking: (order: OrderAfterChange, tracking: object, replaced: boolean): OrderEventDraft =>
    ORDER_EVENTS.draft('order.tracking', { ...about(order), tracking, replaced }),
  detailedStatus: (order: OrderAfterChange, detailedStatus: object): OrderEventDraft =>
    ORDER_EVENTS.draft('order.detailed_status', { ...about(order), detailed_status: detailedStatus }),
  deliveryError: (order: OrderAfterChange, deliveryError: object): OrderEventDraft =>
    ORDER_EVENTS.draft('order.delivery_error', { ...about(order), delivery_error: deliveryError }),
};
