import { Injectable } from '@nestjs/common';
import { errorResponseOf } from '../platform/http/exception.filter';
import { type ErrorResponse, ReplayedErrorResponse } from '../platform/http/error-responses';
import { SecretSealer } from '../platform/formats/secret-sealer';
import { UnitOfWork } from '../platform/database/unit-of-work';
import { inBatches } from '../platform/jobs/periodic-job';
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

/** What a request answered, all of which a repeat answers again: the body, and the ETag of an order. */
export interface Answer {
  body: unknown;
  etag?: string;
}

export interface IdempotentOutcome extends Answer {
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
    private readonly sealer: SecretSealer,
  ) {}

  /**
   * Runs `handle` (the route) under the key, or replays the stored response. A 4xx the route answers is
   * stored (with nothing it wrote) and replayed too; a 5xx stores nothing, so the request can be retried.
   * The answer is stored sealed: it can hold an order's device credentials.
   */
  async run(request: IdempotentRequest, handle: () => Promise<Answer>): Promise<IdempotentOutcome> {
    let refusal: Error | undefined;
    const outcome = await this.unitOfWork.around(async (manager): Promise<IdempotentOutcome> => {
      const { companyId, key } = request;
      if (!(await this.keys.tryLock(manager, companyId, key))) throw new IdempotencyKeyInUseError();
      const stored = await this.keys.find(manager, companyId, key);
      if (stored && stored.expiresAt.getTime() > Date.now()) {
        if (stored.requestHash !== request.fingerprint) throw new IdempotencyKeyReusedError();
        const answer = JSON.parse(this.sealer.open(stored.response)) as Answer;
        if (stored.responseStatus >= 400) {
          throw new ReplayedErrorResponse({
            status: stored.responseStatus,
            body: answer.body as ErrorResponse['body'],
          });
        }
        return { ...answer, replayed: true };
      }
      if (stored) await this.keys.remove(manager, companyId, key);

      await manager.query('SAVEPOINT idempotent_request');
      let status = request.successStatus;
      let answer: Answer;
      try {
        answer = await handle();
      } catch (error) {
        const response = errorResponseOf(error, request.docsUrl);
        if (response.status >= 500) throw error;
        await manager.query('ROLLBACK TO SAVEPOINT idempotent_request');
        refusal = error as Error; // a 4xx comes only from a DomainError or an HttpException
        ({ status } = response);
        answer = { body: response.body };
      }
      await this.keys.insert(manager, {
        companyId,
        key,
        requestHash: request.fingerprint,
        responseStatus: status,
        response: this.sealer.seal(JSON.stringify(answer)),
        expiresAt: new Date(Date.now() + IDEMPOTENCY_KEY_TTL_MS),
      });
      return { ...answer, replayed: false };
    });
    if (refusal) throw refusal;
    return outcome;
  }

  /** Removes keys past their 24 hours, in batches, until none is left or `until` has passed; returns how many. */
  deleteExpired(until: number, batchSize = 1_000): Promise<number> {
    return inBatches(() => this.keys.deleteExpired(batchSize), batchSize, until);
  }
}
