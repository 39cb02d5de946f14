import { issueAdminToken, startApp, type TestApp } from '../harness/app';
import { abortAndRestart, copyOrder, type StalledClient } from '../harness/exports';
import { Fixtures } from '../harness/factories';
import { metricValue } from '../harness/metrics';
import {
  missingForStreamingReplica,
  type StreamingReplica,
  startStreamingReplica,
} from '../harness/streaming-replica';

/**
 * Issue 31, item 6, on a real streaming replica (PostgreSQL 15, pg_basebackup): downloads aborted after their
 * first chunk and started again at once were refused with 429 while the replica answered the export's batches,
 * because the slot came back only once the batch in flight had been read. The app runs in this process with
 * DATABASE_REPLICA_URL on the replica; the servers are processes of their own, hence the system lane.
 * test/export-slots.e2e-spec.ts shows the same with the primary behind a slow relay, in `npm test`.
 */

const missing = missingForStreamingReplica();
if (missing.length > 0)
  console.log(
    `test/system/export-replica.system-spec.ts skipped: ${missing.join(', ')} missing (postgresql-15)`,
  );
const describeWithReplica = missing.length > 0 ? describe.skip : describe;

describeWithReplica('the export with a streaming read replica', () => {
  let servers: StreamingReplica;
  let app: TestApp;
  let stalled: StalledClient | undefined;

  beforeAll(async () => {
    servers = await startStreamingReplica({ primary: 23642, replica: 23643 });
    app = await startApp({
      env: {
        DATABASE_URL: servers.primaryUrl,
        DATABASE_REPLICA_URL: servers.replicaUrl,
        RATE_LIMIT_PER_MINUTE: '100000',
        EXPORT_STALL_TIMEOUT_MS: '120000',
      },
    });
  }, 120_000);

  afterAll(async () => {
    stalled?.socket.destroy();
    await app?.stop();
    await servers?.stop();
  });

  it('gives the slot of an aborted download back at once: 25 aborts after the first chunk, each started again at once, never a 429', async () => {
    const fixtures = new Fixtures(app.url, await issueAdminToken(app));
    const { partner, orderId } = await fixtures.partnerWithOrder();
    await copyOrder(app.db, orderId, 20_000);
    const sequence = await abortAndRestart(app, partner.token, 25);
    stalled = sequence.stalled;
    expect(sequence.refused).toEqual([]);
    // The replica answered the export's batches (once it had replayed the copies).
    expect(
      await metricValue(app, 'db_reads_total', { target: 'replica', reason: 'caught_up' }),
    ).toBeGreaterThan(0);
  });
});
