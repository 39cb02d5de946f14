import { errorAnswerOf, type FieldErrors } from '../../kernel/domain-error';
import './http.errors';

export interface ErrorResponse {
  status: number;
  body: Record<string, unknown>;
}

export const SERVER_ERROR: ErrorResponse = { status: 500, body: { message: 'Server error.' } };

/**
 * The wire body of CONTRACT §2 for an error code, as the module that raises it declared it; used only by the
 * exception filter. A code no module declared is a server error.
 */
export function errorResponseFor(
  code: string,
  message: string,
  fieldErrors: FieldErrors | undefined,
  docsUrl: string,
): ErrorResponse {
  const answer = errorAnswerOf(code);
  if (!answer) return SERVER_ERROR;
  return { status: answer.status, body: answer.body?.({ message, fieldErrors, docsUrl }) ?? { message } };
}

/** An error response decided by an earlier request and replayed as it was (an Idempotency-Key repeat). */
export class ReplayedErrorResponse extends Error {
  constructor(readonly response: ErrorResponse) {
    super(`Replayed ${response.status} response`);
    this.name = 'ReplayedErrorResponse';
  }
}
