/**
 * class-transformer helpers for values as clients send them. Each returns the input unchanged when it is not
 * a form it accepts, so the validator that follows rejects it with a message (implicit conversion is off).
 */
type TransformArgs = { value: unknown };

/** "12" → 12 (query strings); numbers pass through. */
export const toInteger = ({ value }: TransformArgs): unknown =>
  typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;

const TRUE_VALUES: unknown[] = [true, 1, 'true', '1'];
const FALSE_VALUES: unknown[] = [false, 0, 'false', '0'];

/** CONTRACT §2: true, false, 1, 0, "true", "false", "1", "0"; anything else stays as is and fails @IsBoolean. */
export const toBoolean = ({ value }: TransformArgs): unknown => {
  if (TRUE_VALUES.includes(value)) return true;
  if (FALSE_VALUES.includes(value)) return false;
  return value;
};
