import { fromDist, startApp, type TestApp } from '../harness/app';
import { unique } from '../harness/factories';

const { WritePositions } = fromDist<typeof import('../../src/platform/database/write-positions')>(
  'platform/database/write-positions',
);
const { UnitOfWork } = fromDist<typeof import('../../src/platform/database/unit-of-work')>(
  'platform/database/unit-of-work',
);
/** TypeORM as the app loaded it (the class the app's injector knows). */
const { DataSource } = globalThis.nativeRequire('typeorm') as typeof import('typeorm');

/**
 * The write positions a read replica waits for (WritePositions, CONTRACT §9), called in process on a real
 * PostgreSQL: a company's position is where the primary's WAL ended once its write had committed: recorded at
 * once for a single statement, after COMMIT for a transaction, never for a rolled-back one, never moved back.
 */
describe('write positions: where a company last wrote, recorded once the write has committed', () => {
  let app: TestApp;
  let positions: InstanceType<typeof WritePositions>;
  let unitOfWork: InstanceType<typeof UnitOfWork>;
  let dataSource: InstanceType<typeof DataSource>;

  const company = async () =>
    (
      await app.db.query<{ id: number }>(
        "INSERT INTO companies (name, site) VALUES ($1, 'SK') RETURNING id",
        [unique('Positions')],
      )
    ).rows[0].id;
  /** The company's recorded position, as text, or null. */
  const positionOf = async (companyId: number) =>
    ((await app.db.query('SELECT lsn::text FROM company_write_positions WHERE company_id = $1', [companyId]))
      .rows[0]?.lsn as string | undefined) ?? null;
  /** Whether `a` is at or past `b`, as PostgreSQL compares WAL positions. */
  const atOrPast = async (a: string, b: string) =>
    (await app.db.query<{ ok: boolean }>('SELECT $1::pg_lsn >= $2::pg_lsn AS ok', [a, b])).rows[0].ok;

  beforeAll(async () => {
    app = await startApp({ env: { WEBHOOK_DISPATCHER: 'false' } });
    positions = app.get(WritePositions);
    unitOfWork = app.get(UnitOfWork);
    dataSource = app.get(DataSource);
  });

  afterAll(async () => {
    await app?.stop();
  });

  it('records a single statement’s write at once, at or past where the WAL was after it', async () => {
    const companyId = await company();
    const before = (await app.db.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn'))
      .rows[0].lsn;
    await positions.changed(dataSource.manager, companyId);
    const recorded = await positionOf(companyId);
    expect(recorded).not.toBeNull();
    expect(await atOrPast(recorded!, before)).toBe(true);
  });

  it('records a transaction’s companies only after its COMMIT, past its last statement', async () => {
    const [first, second] = [await company(), await company()];
    let insideTransaction: string | undefined;
    const seenDuring: (string | null)[] = [];
    await unitOfWork.transaction(async (manager) => {
      await manager.query("UPDATE companies SET name = name || '.' WHERE id = ANY($1)", [[first, second]]);
      await positions.changed(manager, first);
      await positions.changed(manager, second);
      await positions.changed(manager, first);
      seenDuring.push(await positionOf(first), await positionOf(second));
      const [now] = await manager.query<{ lsn: string }[]>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
      insideTransaction = now.lsn;
    });
    expect(seenDuring).toEqual([null, null]);
    for (const companyId of [first, second]) {
      const recorded = await positionOf(companyId);
      expect(recorded).not.toBeNull();
      expect(await atOrPast(recorded!, insideTransaction!)).toBe(true);
    }
  });

  it('records nothing for a transaction that rolls back', async () => {
    const companyId = await company();
    await expect(
      unitOfWork.transaction(async (manager) => {
        await positions.changed(manager, companyId);
        throw new Error('rolled back on purpose');
      }),
    ).rejects.toThrow('rolled back on purpose');
    expect(await positionOf(companyId)).toBeNull();
  });

  it('never moves a position back', async () => {
    const companyId = await company();
    await app.db.query("INSERT INTO company_write_positions (company_id, lsn) VALUES ($1, 'FFFFFFFF/0')", [
      companyId,
    ]);
    await positions.changed(dataSource.manager, companyId);
    expect(await positionOf(companyId)).toBe('FFFFFFFF/0');
  });
});
