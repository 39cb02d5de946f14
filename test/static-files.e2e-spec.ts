import { findFreePort } from '../src/platform/database/free-port';
import { startApp, type TestApp } from './harness/app';
import { eventually } from './harness/eventually';

/** The admin console's files in the request log and the request metrics: their own path, one route label. */
describe('static files in the request log and the metrics', () => {
  let service: TestApp;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await findFreePort();
    service = await startApp({ env: { METRICS_PORT: String(metricsPort) } });
  });

  afterAll(async () => {
    await service.stop();
  });

  // fetch, not supertest: the console's files are outside the OpenAPI document the harness checks against.
  it('logs a console file with its full path and the route /console/*', async () => {
    for (const path of ['/console/', '/console/app.js'])
      expect((await fetch(service.url + path)).status).toBe(200);
    await eventually(
      () => service.logs().filter((line) => line.msg === 'request completed').length >= 2,
      () => `no request lines:\n${service.output()}`,
    );
    const lines = service
      .logs()
      .filter((line) => line.msg === 'request completed')
      .map((line) => ({ path: (line.req as { path: string }).path, route: line.route }));
    expect(lines).toEqual(
      expect.arrayContaining([
        { path: '/console/', route: '/console/*' },
        { path: '/console/app.js', route: '/console/*' },
      ]),
    );
  });

  it('counts console files under the route /console/*, and an unknown one as unmatched', async () => {
    expect((await fetch(`${service.url}/console/app.css`)).status).toBe(200);
    expect((await fetch(`${service.url}/console/no-such-file.js`)).status).toBe(404);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(
      /^http_request_duration_seconds_count\{method="GET",route="\/console\/\*",status="200"\} [1-9]/m,
    );
    expect(metrics).toMatch(
      /^http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} [1-9]/m,
    );
  });
});
