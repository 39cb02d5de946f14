import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { toFieldErrors } from '../kernel/validation';

/** Bad command-line input: the message names each bad option and why. */
export class CliInputError extends Error {
  override name = 'CliInputError';
}

/** Validates options with the same DTO (and so the same rules and messages) as the API route. */
export function validateOptions<T extends object>(dto: new () => T, options: Record<string, unknown>): T {
  const instance = plainToInstance(dto, options);
  const errors = toFieldErrors(validateSync(instance, { whitelist: true, stopAtFirstError: true }));
  const lines = Object.entries(errors).map(
    ([field, messages]) => `--${field.replace(/_/g, '-')}: ${messages.join(' ')}`,
  );
  if (lines.length > 0) throw new CliInputError(lines.join('\n'));
  return instance;
}

/** Something the operator should know about a change that was made anyway: on stderr, stdout stays JSON. */
export function warn(message: string): void {
  process.stderr.write(`Warning: ${message}\n`);
}

/** The CLI prints exactly one JSON object on stdout; everything else goes to stderr. */
export function printResult(result: object): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
