import { fromDist, type TestApp } from './app';

/**
 * The value of a series of an app's metrics registry, read in process (whatever METRICS_PORT is): the one whose
 * labels include `labels`, undefined when the series has no such value yet.
 */
export async function metricValue(
  app: TestApp,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const { AppMetrics } = fromDist<typeof import('../../src/platform/metrics/app-metrics')>(
    'platform/metrics/app-metrics',
  );
  const metric = app.get(AppMetrics).registry.getSingleMetric(name);
  const values = (await metric?.get())?.values ?? [];
  return values.find((value) => Object.entries(labels).every(([key, label]) => value.labels[key] === label))
    ?.value;
}
