/** Deliveries are retried for this long after the event (CONTRACT §5), then given up. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
const MAX_DELAY_MS = 60 * 60 * 1000;

/**
 * The wait before the next try after `attempts` failed ones: base · 2^(attempts-1), at most an hour, with
 * "equal jitter" (between half and all of it) so that receivers coming back up are not hit all at once.
 * A receiver's Retry-After is honoured when it asks for longer.
 */
export function retryDelayMs(
  attempts: number,
  baseMs: number,
  random: number,
  retryAfterMs?: number,
): number {
  const exponential = Math.min(MAX_DELAY_MS, baseMs * 2 ** Math.min(attempts - 1, 30));
  const jittered = Math.round(exponential / 2 + (exponential / 2) * random);
  return Math.min(MAX_DELAY_MS, Math.max(jittered, retryAfterMs ?? 0));
}
