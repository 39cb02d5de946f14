/** Polls `check` until it returns true, or throws `failure()` after `timeoutMs`: for what happens in the background. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  failure: () => string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(failure());
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
