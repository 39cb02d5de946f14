import { Injectable } from '@nestjs/common';
import type { Actor } from '../kernel/access/actor';
import type { FieldErrors } from '../kernel/domain-error';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '../idempotency/idempotency.errors';
import { IDEMPOTENCY_KEY_TTL_MS } from '../idempotency/idempotency.service';
import { SecretSealer } from '../platform/formats/secret-sealer';
import { ApiFormats } from '../platform/formats/api-formats';
import type { AdminImportResponse, ImportResponse } from './dto/import.response';
import { type FileSummary, type ParsedLine, readImportFile } from './import-file';
import { ImportNotFoundError } from './imports.errors';
import { ImportsRepository, type StoredLine } from './imports.repository';
import type { ImportFormat, ImportState, OrderImport } from './order-import.entities';
import { ImportWorker } from './import-worker';

/** Lines written per statement while the file arrives: memory holds one batch, whatever the file's size. */
const UPLOAD_BATCH = 1_000;
/** Results read per statement while they stream. */
const RESULTS_BATCH = 1_000;

export interface Upload {
  actor: Actor;
  companyId: number;
  format: ImportFormat;
  dryRun: boolean;
  idempotencyKey: string | undefined;
  file: AsyncIterable<Buffer>;
}

/** An upload's answer: the import, and whether it is the first import of the same key and file (a replay). */
export interface Uploaded {
  import: OrderImport;
  replayed: boolean;
}

@Injectable()
export class ImportsService {
  constructor(
    private readonly imports: ImportsRepository,
    private readonly sealer: SecretSealer,
    private readonly formats: ApiFormats,
    private readonly worker: ImportWorker,
  ) {}

  /**
   * Stores the file line by line as it arrives, each batch in a statement of its own (a transaction held for
   * the whole upload would hold back every company's event feed, which reads below the oldest transaction
   * running): the import is `uploading`, which no worker claims and no list shows, until its last line is
   * stored. A file refused whole (fileError) or an upload cut off deletes it with its lines; an upload that a
   * crash interrupted is deleted by ImportUploadsCleanup. The worker places the lines later (CONTRACT §4.11).
   */
  async upload(upload: Upload): Promise<Uploaded> {
    const { companyId, idempotencyKey: key } = upload;
    if (key !== undefined) {
      const earlier = await this.imports.findByKey(companyId, key);
      if (earlier && earlier.createdAt.getTime() + IDEMPOTENCY_KEY_TTL_MS <= Date.now()) {
        await this.imports.forgetKey(earlier.id);
      } else if (earlier) {
        if (earlier.state === 'uploading') throw new IdempotencyKeyInUseError();
        return { import: earlier, replayed: await this.sameFile(earlier, upload) };
      }
    }
    const created = await this.imports.create(this.newImport(upload));
    if (!created) throw new IdempotencyKeyInUseError();
    try {
      const stored = await this.store(created.id, upload);
      this.worker.wake();
      return { import: stored, replayed: false };
    } catch (error) {
      await this.imports.remove(created.id);
      throw error;
    }
  }

  private newImport(upload: Upload): Partial<OrderImport> {
    return {
      companyId: upload.companyId,
      format: upload.format,
      dryRun: upload.dryRun,
      state: 'uploading',
      total: 0,
      fileSha256: '',
      idempotencyKey: upload.idempotencyKey ?? null,
      tokenId: upload.actor.tokenId,
      userName: upload.actor.userName,
      requestId: upload.actor.requestId,
    };
  }

  /** A repeat under an earlier import's key: true for the same file and options (a replay), else 422. */
  private async sameFile(earlier: OrderImport, upload: Upload): Promise<true> {
    const lines = readImportFile(upload.file, upload.format);
    let next: IteratorResult<ParsedLine, FileSummary>;
    while (!(next = await lines.next()).done);
    if (earlier.fileSha256 !== next.value.sha256 || earlier.dryRun !== upload.dryRun) {
      throw new IdempotencyKeyReusedError();
    }
    return true;
  }

  private async store(importId: number, upload: Upload): Promise<OrderImport> {
    let batch: StoredLine[] = [];
    let failed = 0;
    const lines = readImportFile(upload.file, upload.format);
    let next: IteratorResult<ParsedLine, FileSummary>;
    while (!(next = await lines.next()).done) {
      const parsed = next.value;
      if ('errors' in parsed) failed += 1;
      batch.push(
        'errors' in parsed
          ? { line: parsed.line, body: null, errors: parsed.errors }
          : { line: parsed.line, body: this.sealer.seal(parsed.body), errors: null },
      );
      if (batch.length === UPLOAD_BATCH) {
        await this.imports.insertLines(importId, batch);
        batch = [];
      }
    }
    if (batch.length > 0) await this.imports.insertLines(importId, batch);
    return this.imports.finishUpload(importId, next.value.lines, failed, next.value.sha256);
  }

  async get(companyId: number, id: number): Promise<ImportResponse> {
    return this.present(await this.found(this.imports.findOfCompany(companyId, id)));
  }

  async getAny(id: number): Promise<AdminImportResponse> {
    return this.presentAdmin(await this.found(this.imports.findById(id)));
  }

  async list(companyId: number, offset: number, limit: number): Promise<ImportResponse[]> {
    return (await this.imports.list(companyId, offset, limit)).map((row) => this.present(row));
  }

  async listAny(companyId: number | null, offset: number, limit: number): Promise<AdminImportResponse[]> {
    return (await this.imports.list(companyId, offset, limit)).map((row) => this.presentAdmin(row));
  }

  /** The import's results (its company's, or any when `companyId` is null): NDJSON lines, read in batches. */
  async results(companyId: number | null, id: number): Promise<AsyncGenerator<string>> {
    const found = await this.found(
      companyId === null ? this.imports.findById(id) : this.imports.findOfCompany(companyId, id),
    );
    return this.resultLines(found.id);
  }

  private async *resultLines(importId: number): AsyncGenerator<string> {
    let after = 0;
    for (;;) {
      const rows = await this.imports.results(importId, after, RESULTS_BATCH);
      if (rows.length === 0) return;
      yield rows.map((row) => JSON.stringify(resultOf(row)) + '\n').join('');
      after = rows[rows.length - 1].line;
    }
  }

  private async found(lookup: Promise<OrderImport | null>): Promise<OrderImport> {
    const row = await lookup;
    if (!row) throw new ImportNotFoundError();
    return row;
  }

  present(row: OrderImport): ImportResponse {
    return {
      id: row.id,
      state: row.state as ImportState,
      format: row.format,
      dry_run: row.dryRun,
      total: row.total,
      placed: row.placed,
      failed: row.failed,
      created_at: this.formats.dateTime(row.createdAt),
      started_at: this.formats.dateTime(row.startedAt),
      finished_at: this.formats.dateTime(row.finishedAt),
    };
  }

  private presentAdmin(row: OrderImport): AdminImportResponse {
    return { ...this.present(row), company_id: row.companyId };
  }
}

function resultOf(row: { line: number; order_id: number | null; errors: FieldErrors | null }) {
  if (row.errors) return { line: row.line, errors: row.errors };
  return row.order_id === null ? { line: row.line } : { line: row.line, order_id: row.order_id };
}
