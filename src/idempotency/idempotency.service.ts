import { Injectable } from '@nestjs/common';
import { errorResponseOf } from '../common/exception.filter';
import { type ErrorResponse, ReplayedErrorResponse } from '../common/error-responses';
import { UnitOfWork } from '../database/unit-of-work';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from './idempotency.errors';
import { IdempotencyRepository } from './idempotency.repository';

/** How long a key is kept (CONTRACT §4: at most once within 24 hours). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotentRequest {
  companyId: number;
  key: string;
  /** requestFingerprint() of the request. */
  fingerprint: string;
  /** The status the route answers with when it succeeds. */
  successStatus: number;
  /** The docs URL, for error bodies that name it. */
  docsUrl: string;
}

export interface IdempotentOutcome {
  body: unknown;
  replayed: boolean;
}

/**
 * Carries a partner write out at most once per company and key (CONTRACT §4, Stripe's semantics). The key
 * is locked, checked, and its response stored in the same transaction as everything the request changed:
 * either both commit or neither does, so a crash can neither lose a response nor let a retry run twice.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly keys: IdempotencyRepository,
  ) {}

  /**
   * Runs `handle` (the route) under the key, or replays the stored response. A 4xx the route answers is
   * stored (with nothing it wrote) and replayed too; a 5xx stores nothing, so the request can be retried.
   */
  async run(request: IdempotentRequest, handle: () => Promise<unknown>): Promise<IdempotentOutcome> {
    let refusal: Error | undefined;
    const outcome = await this.unitOfWork.around(async (manager): Promise<IdempotentOutcome> => {
      const { companyId, key } = request;
      if (!(await this.keys.tryLock(manager, companyId, key))) throw new IdempotencyKeyInUseError();
      const stored = await this.keys.find(manager, companyId, key);
      if (stored && stored.expiresAt.getTime() > Date.now()) {
        if (stored.requestHash !== request.fingerprint) throw new IdempotencyKeyReusedError();
        if (stored.responseStatus >= 400) {
          throw new ReplayedErrorResponse({
            status: stored.responseStatus,
            body: stored.responseBody as ErrorResponse['body'],
          });
        }
        return { body: stored.responseBody, replayed: true };
      }
      if (stored) await this.keys.remove(manager, companyId, key);

      await manager.query('SAVEPOINT idempotent_request');
      let response: ErrorResponse;
      try {
        response = { status: request.successStatus, body: (await handle()) as ErrorResponse['body'] };
      } catch (error) {
        response = errorResponseOf(error, request.docsUrl);
        if (response.status >= 500) throw error;
        await manager.query('ROLLBACK TO SAVEPOINT idempotent_request');
        refusal = error as Error; // a 4xx comes only from a DomainError or an HttpException
      }
      await this.keys.insert(manager, {
        companyId,
        key,
        requestHash: request.fingerprint,
        responseStatus: response.status,
        responseBody: response.body,
        expiresAt: new Date(Date.now() + IDEMPOTENCY_KEY_TTL_MS),
      });
      return { body: response.body, replayed: false };
    });
    if (refusal) throw refusal;
    return outcome;
  }

  /** Removes keys past their 24 hours, in batches; returns how many. */
  async deleteExpired(batchSize = 1_000): Promise<number> {
    let total = 0;
    for (let deleted = batchSize; deleted === batchSize; total += deleted) {
      deleted = await this.keys.deleteExpired(batchSize);
    }
    return total;
  }
}
