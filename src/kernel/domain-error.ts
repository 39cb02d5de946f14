export type FieldErrors = Record<string, string[]>;

/** What an error body is built from: the error's message and field errors, and the documentation's URL. */
export interface ErrorDetail {
  message: string;
  fieldErrors: FieldErrors | undefined;
  docsUrl: string;
}

/** How an error code is answered: its status, and its body when that is not `{"message": <the message>}`. */
export interface ErrorAnswer {
  status: number;
  body?: (detail: ErrorDetail) => Record<string, unknown>;
}

const answers = new Map<string, ErrorAnswer>();

/**
 * Declares the stable codes a module raises, with their answers (CONTRACT §2), as the module loads. The
 * exception filter is the only reader: the one place a code becomes a status and a body.
 */
export function declareErrorCodes(declared: Record<string, ErrorAnswer>): void {
  for (const [code, answer] of Object.entries(declared)) {
    if (answers.has(code)) throw new Error(`The error code ${code} is declared twice.`);
    answers.set(code, answer);
  }
}

/** The declared answer of a code, or undefined for a code no module declared. */
export const errorAnswerOf = (code: string): ErrorAnswer | undefined => answers.get(code);

declareErrorCodes({
  VALIDATION_FAILED: {
    status: 400,
    body: ({ message, fieldErrors }) => ({ message, errors: fieldErrors ?? {} }),
  },
});

export class DomainError extends Error {
  constructor(
    readonly code: string,
    message?: string,
    readonly fieldErrors?: FieldErrors,
  ) {
    super(message ?? code);
    this.name = 'DomainError';
  }
}

/** A request that failed validation: `errors` maps each failing field to its messages. */
export class ValidationFailedError extends DomainError {
  constructor(fieldErrors: FieldErrors) {
    super('VALIDATION_FAILED', 'Bad request.', fieldErrors);
  }
}

/** A 400 naming one field, for rules a DTO cannot check alone (they need the database or other fields). */
export function fieldError(field: string, message: string): ValidationFailedError {
  return new ValidationFailedError({ [field]: [message] });
}
