import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DeliveryError, DetailedStatus, Tracking } from '../order-children.entities';

export interface TrackingValues {
  status: string | null;
  statusDate: Date | null;
  dispatchDate: Date | null;
  deliveryDate: Date | null;
  trackingLink: string | null;
}

/** The facts recorded about an order (its trackings, detailed statuses and delivery errors); the order row itself is changed through OrdersRepository. */
@Injectable()
export class OrderFactsRepository {
  /**
   * Creates or replaces the tracking with this number, atomically: two concurrent PUTs of one number never
   * make two rows (unique order_id + tracking_number). Returns whether it was created.
   */
  async upsertTracking(
    manager: EntityManager,
    order: { id: number; companyId: number },
    trackingNumber: string,
    values: TrackingValues,
  ): Promise<boolean> {
    const rows: { created: boolean }[] = await manager.query(
      `INSERT INTO trackings (order_id, company_id, tracking_number, status, status_date, dispatch_date, delivery_date, tracking_link)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (order_id, tracking_number) DO UPDATE SET
         status = EXCLUDED.status, status_date = EXCLUDED.status_date, dispatch_date = EXCLUDED.dispatch_date,
         delivery_date = EXCLUDED.delivery_date, tracking_link = EXCLUDED.tracking_link, updated_at = now()
       RETURNING (xmax = 0) AS created`,
      [
        order.id,
        order.companyId,
        trackingNumber,
        values.status,
        values.statusDate,
        values.dispatchDate,
        values.deliveryDate,
        values.trackingLink,
      ],
    );
    return rows[0]?.created ?? false;
  }

  /** The dispatch date of the order's tracking with this number (null when it has none or no such tracking). */
  async dispatchDateOf(
    manager: EntityManager,
    orderId: number,
    trackingNumber: string,
  ): Promise<Date | null> {
    const tracking = await manager.findOne(Tracking, {
      select: { id: true, dispatchDate: true },
      where: { orderId, trackingNumber },
    });
    return tracking?.dispatchDate ?? null;
  }

  async insertDetailedStatus(
    manager: EntityManager,
    values: Omit<DetailedStatus, 'id' | 'createdAt' | 'order'>,
  ): Promise<void> {
    await manager.insert(DetailedStatus, values);
  }

  async insertDeliveryError(
    manager: EntityManager,
    values: Omit<DeliveryError, 'id' | 'createdAt' | 'order'>,
  ): Promise<void> {
    await manager.insert(DeliveryError, values);
  }
}
