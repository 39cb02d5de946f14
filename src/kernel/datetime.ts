import { DateTime } from 'luxon';

/** Input formats of CONTRACT §2: a date alone means 00:00:00 of that date, in the service time zone. */
const INPUT_FORMATS = ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", 'yyyy-MM-dd'] as const;
export const INPUT_SHAPE = /^\d{4}-\d{2}-\d{2}(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?)?$/;

/**
 * Parses a datetime given by a client in the service time zone. Returns null for anything that is not one
 * of the three accepted shapes or is not a real calendar moment (2024-02-30, 25:00).
 */
export function parseApiDateTime(value: string, zone: string): Date | null {
  if (!INPUT_SHAPE.test(value)) return null;
  for (const format of INPUT_FORMATS) {
    const parsed = DateTime.fromFormat(value, format, { zone });
    if (parsed.isValid) return parsed.toJSDate();
  }
  return null;
}

/** Formats a moment the way every response shows it: YYYY-MM-DDTHH:MM in the service time zone. */
export function formatApiDateTime(value: Date, zone: string): string;
export function formatApiDateTime(value: Date | null | undefined, zone: string): string | null;
export function formatApiDateTime(value: Date | null | undefined, zone: string): string | null {
  if (value === null || value === undefined) return null;
  return DateTime.fromJSDate(value, { zone }).toFormat("yyyy-MM-dd'T'HH:mm");
}
