import { createServer } from 'node:net';
import { StartupError } from '../config/startup-error';

/** Listens on `port` (0: any) of `host` (unset: every interface), closes at once, and resolves with the port. */
function bindBriefly(port: number, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(bound));
    });
  });
}

/** Asks the kernel for a port nobody listens on right now. */
export function findFreePort(): Promise<number> {
  return bindBriefly(0, '127.0.0.1');
}

/**
 * Refuses a PORT someone else listens on with one line, before the framework would report it its own way
 * (a log line of its own, then the error).
 */
export async function assertPortFree(port: number): Promise<void> {
  if (port === 0) return;
  await bindBriefly(port).catch((error: NodeJS.ErrnoException) => {
    throw new StartupError(
      error.code === 'EADDRINUSE'
        ? `PORT ${port} is already in use (another instance on this machine?): stop it, or set PORT to a free port.`
        : `Cannot listen on PORT ${port}: ${error.message}.`,
      'PORT',
    );
  });
}
