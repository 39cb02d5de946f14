import { Global, Module } from '@nestjs/common';
import { AppMetrics } from './app-metrics';
import { MetricsServer } from './metrics-server';

/** Prometheus metrics (CONTRACT §8) on their own port; AppMetrics is injectable everywhere in the app. */
@Global()
@Module({
  providers: [AppMetrics, MetricsServer],
  exports: [AppMetrics],
})
export class MetricsModule {}
