import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import helmet from 'helmet';

/**
 * The admin console's own Content-Security-Policy, stricter than the API's: its page loads only its own
 * script and style sheet (no inline script or style) and talks only to this origin.
 */
const CONSOLE_SECURITY_HEADERS: Parameters<typeof helmet>[0] = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'style-src': ["'self'"],
      'img-src': ["'self'"],
      'connect-src': ["'self'"],
      'base-uri': ["'none'"],
      'form-action': ["'self'"],
      'frame-ancestors': ["'none'"],
    },
  },
};

/**
 * Serves the admin console (CONTRACT §6), built into dist/console by `npm run build`, at /console: static
 * files only; it signs in with an admin token and calls the admin API like any other client.
 */
export function serveAdminConsole(app: NestExpressApplication): void {
  app.use('/console', helmet(CONSOLE_SECURITY_HEADERS));
  app.useStaticAssets(join(__dirname, '..', '..', 'console'), { prefix: '/console', fallthrough: true });
}
