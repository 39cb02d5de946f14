import { createServer, type Server } from 'node:http';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Environment } from '../config/environment';
import { StartupError } from '../config/startup-error';
import { AppMetrics } from './app-metrics';

/**
 * Serves `GET /metrics` (Prometheus text format) on METRICS_PORT, apart from the public port. A port already
 * taken (another instance on the same machine, say) stops the start with one line saying so.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MetricsServer.name);
  private readonly port: number;
  private server?: Server;

  constructor(
    private readonly metrics: AppMetrics,
    config: ConfigService<Environment, true>,
  ) {
    this.port = config.get('METRICS_PORT', { infer: true });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.metrics.enabled) return;
    const server = createServer((request, response) => {
      if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
        response
          .writeHead(404, { 'Content-Type': 'text/plain' })
          .end('Not found: metrics are at /metrics.\n');
        return;
      }
      this.metrics.scrape().then(
        (text) => response.writeHead(200, { 'Content-Type': this.metrics.registry.contentType }).end(text),
        (error: unknown) => {
          this.logger.error({ err: error }, 'Metrics scrape failed');
          response.writeHead(500, { 'Content-Type': 'text/plain' }).end('Metrics scrape failed.\n');
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, resolve);
    }).catch((error: NodeJS.ErrnoException) => {
      throw new StartupError(
        error.code === 'EADDRINUSE'
          ? `METRICS_PORT ${this.port} is already in use (another instance on this machine?): set METRICS_PORT to a free port, or to 0 to turn metrics off.`
          : `Metrics could not listen on METRICS_PORT ${this.port}: ${error.message}`,
      );
    });
    this.server = server;
    this.logger.log({
      event: 'metrics_listening',
      metricsPort: this.port,
      msg: `Metrics on port ${this.port}`,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
  }
}
