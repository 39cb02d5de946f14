import { RETRY_WINDOW_MS, retryDelayMs } from './retry-schedule';

describe('retryDelayMs', () => {
  it('doubles with every failed attempt, between half and all of the exponential delay', () => {
    expect(retryDelayMs(1, 5_000, 0)).toBe(2_500);
    expect(retryDelayMs(1, 5_000, 1)).toBe(5_000);
    expect(retryDelayMs(2, 5_000, 1)).toBe(10_000);
    expect(retryDelayMs(4, 5_000, 0.5)).toBe(30_000);
  });

  it('never waits more than an hour, however many attempts failed', () => {
    expect(retryDelayMs(30, 5_000, 1)).toBe(3_600_000);
    expect(retryDelayMs(500, 5_000, 1)).toBe(3_600_000);
  });

  it("honours a receiver's Retry-After when it asks for longer, within the hour", () => {
    expect(retryDelayMs(1, 5_000, 1, 120_000)).toBe(120_000);
    expect(retryDelayMs(1, 5_000, 1, 1_000)).toBe(5_000);
    expect(retryDelayMs(1, 5_000, 1, 86_400_000)).toBe(3_600_000);
  });

  it('keeps retrying for about a day with the default base of 5 seconds', () => {
    let elapsed = 0;
    let attempts = 0;
    while (elapsed < RETRY_WINDOW_MS) elapsed += retryDelayMs(++attempts, 5_000, 0.5);
    expect(attempts).toBeGreaterThan(20);
    expect(attempts).toBeLessThan(50);
  });
});
