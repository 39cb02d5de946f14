/**
 * A reason the service cannot start that the operator can fix (a bad variable, a port taken, a folder the
 * database cannot reach): its message alone is printed, one line of what and what to do, without a stack.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}
