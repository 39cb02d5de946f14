import Redis from 'ioredis';
import { StartupError } from './startup-error';

/** How long the start-up check waits for the Redis of REDIS_URL to answer. */
const REACH_TIMEOUT_MS = 5_000;

/**
 * Connects once to the Redis of REDIS_URL and pings it, so a URL that leads nowhere stops the start with one line
 * instead of the client's endless reconnection errors. The cause is the client's message, never the URL.
 */
export async function assertRedisReachable(url: string): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: REACH_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // The socket's own error (ECONNREFUSED, say) is emitted; connect() then only says the connection closed.
  let socketError: Error | undefined;
  redis.on('error', (error: Error) => (socketError ??= error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    const cause = socketError ?? (error instanceof Error ? error : new Error(String(error)));
    throw new StartupError(
      `Cannot use the Redis of REDIS_URL: ${cause.message.replace(/\.$/, '')}.`,
      'REDIS_URL',
    );
  } finally {
    redis.disconnect();
  }
}
