import { DateTime } from 'luxon';

/**
 * Input formats of CONTRACT §2 by the length of the value (a date alone means 00:00:00 of that date, in the
 * service time zone), each parser built once: building one reads the format anew, which cost more than the parse.
 */
const INPUT_PARSERS = new Map(
  (["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", 'yyyy-MM-dd'] as const).map((format) => [
    format.replace(/'/g, '').length,
    DateTime.buildFormatParser(format),
  ]),
);
export const INPUT_SHAPE = /^\d{4}-\d{2}-\d{2}(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?)?$/;

/**
 * Parses a datetime given by a client in the service time zone. Returns null for anything that is not one
 * of the three accepted shapes or is not a real calendar moment (2024-02-30, 25:00).
 */
export function parseApiDateTime(value: string, zone: string): Date | null {
  if (!INPUT_SHAPE.test(value)) return null;
  const parsed = DateTime.fromFormatParser(value, INPUT_PARSERS.get(value.length)!, { zone });
  return parsed.isValid ? parsed.toJSDate() : null;
}

const twoDigits = (value: number) => (value < 10 ? `0${value}` : String(value));

/** Formats a moment the way every response shows it: YYYY-MM-DDTHH:MM in the service time zone. */
export function formatApiDateTime(value: Date, zone: string): string;
export function formatApiDateTime(value: Date | null | undefined, zone: string): string | null;
export function formatApiDateTime(value: Date | null | undefined, zone: string): string | null {
  if (value === null || value === undefined) return null;
  // The fields put together rather than toFormat, which reads its format string again on every call.
  const { year, month, day, hour, minute } = DateTime.fromJSDate(value, { zone });
  return `${String(year).padStart(4, '0')}-${twoDigits(month)}-${twoDigits(day)}T${twoDigits(hour)}:${twoDigits(minute)}`;
}
