import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import { type PreparedStatement, PreparedStatements } from './prepared-statements';

/**
 * For each company of `companies` (SQL whose rows are a `company_id` each, no company twice): where the
 * primary's WAL ends now, kept as the company's position unless a later one is already there. Run once a
 * company's write has committed (or is visible to the statement that runs this), the insert position is past
 * the write's commit record, even with asynchronous commit. The companies' rows are locked in id order, so two
 * statements recording the same companies never deadlock. company_write_positions is UNLOGGED (migration
 * 1795520000000): no WAL, no fsync. The only SQL that writes the table; a statement of another module that
 * must record positions (the webhook dispatcher's claim) embeds it.
 */
export const recordWritePositionsSql = (companies: string): string =>
  `INSERT INTO company_write_positions AS p (company_id, lsn)
   SELECT company_id, pg_current_wal_insert_lsn() FROM (${companies}) AS companies ORDER BY company_id
   ON CONFLICT (company_id) DO UPDATE SET lsn = excluded.lsn WHERE p.lsn < excluded.lsn`;

/** The positions of the companies a transaction (or one statement) has written for, after it has committed. */
const RECORD: PreparedStatement = {
  name: 'company_write_position_record',
  text: recordWritePositionsSql('SELECT unnest($1::integer[]) AS company_id'),
};

/**
 * Records, for each company a write changed, the primary's WAL position once the write has committed, where
 * every instance sees it: a read replica serves that company's reads only once it has replayed that far
 * (ReplicaReads). Recorded before the write's response is sent, so a client that has its answer, and anyone it
 * tells, finds the position there. What announces a write by another way, and may do so before this records it
 * (a webhook, sent by another instance), records the position itself first: the dispatcher's claim embeds
 * recordWritePositionsSql. Every instance records, with or without DATABASE_REPLICA_URL, so replicas can
 * be turned on instance by instance. A TypeORM subscriber: a transaction's companies are recorded after its
 * COMMIT, on its own connection (no second pooled connection is taken while one is held), and dropped on a
 * rollback.
 */
@Injectable()
export class WritePositions implements EntitySubscriberInterface, OnModuleInit {
  private readonly pending = new WeakMap<QueryRunner, Set<number>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly prepared: PreparedStatements,
  ) {}

  onModuleInit(): void {
    this.dataSource.subscribers.push(this);
  }

  /**
   * Called once `manager` has written for `companyId`: in a transaction, the position is recorded after it
   * commits; outside one (a single statement, already durable), at once.
   */
  async changed(manager: EntityManager, companyId: number): Promise<void> {
    const runner = manager.queryRunner;
    if (!runner?.isTransactionActive) {
      await this.prepared.rows(RECORD, [[companyId]]);
      return;
    }
    const companies = this.pending.get(runner) ?? new Set<number>();
    this.pending.set(runner, companies.add(companyId));
  }

  async afterTransactionCommit({ queryRunner }: TransactionCommitEvent): Promise<void> {
    const companies = this.pending.get(queryRunner);
    // A released savepoint is not the commit: the outer transaction may still roll back.
    if (!companies || queryRunner.isTransactionActive) return;
    this.pending.delete(queryRunner);
    await this.prepared.rowsOn(queryRunner.manager, RECORD, [[...companies]]);
  }

  afterTransactionRollback({ queryRunner }: TransactionRollbackEvent): void {
    // A savepoint's rollback keeps them: the outer transaction may still commit what came before it, and a
    // position recorded once too often costs one statement, never a stale read.
    if (!queryRunner.isTransactionActive) this.pending.delete(queryRunner);
  }
}
