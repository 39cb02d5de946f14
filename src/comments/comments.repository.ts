import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

@Injectable()
export class CommentsRepository {
  /** One comment per user and order: a repost replaces the text. Returns whether a new comment was added. */
  async upsert(manager: EntityManager, orderId: number, userName: string, text: string): Promise<boolean> {
    const rows: { inserted: boolean }[] = await manager.query(
      `INSERT INTO order_comments (order_id, user_name, partner_comment) VALUES ($1, $2, $3)
       ON CONFLICT (order_id, user_name)
       DO UPDATE SET partner_comment = EXCLUDED.partner_comment, updated_at = now()
       RETURNING (xmax = 0) AS inserted`,
      [orderId, userName, text],
    );
    return rows[0]?.inserted ?? false;
  }
}
