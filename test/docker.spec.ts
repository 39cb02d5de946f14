import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate, ValidationSeverity, type ValidatorSettings } from 'dockerfile-utils';
import { parse as parseYaml } from 'yaml';
import { brokenLink } from './harness/markdown';

/**
 * The Docker and monitoring files, checked without a Docker daemon (these machines have none): the Dockerfile with the
 * dockerfile-utils linter (the one behind VS Code's Docker support) at its strictest, since hadolint is not
 * installable here (neither a Debian package nor an npm package that ships its binary; .ci/run runs it when
 * it is on PATH), and the compose file's shape.
 */
const REPOSITORY = join(__dirname, '..');
const DOCKER = join(REPOSITORY, 'docker');
const read = (file: string) => readFileSync(join(DOCKER, file), 'utf8');

const STRICTEST: ValidatorSettings = Object.fromEntries(
  [
    'deprecatedMaintainer',
    'directiveCasing',
    'emptyContinuationLine',
    'instructionCasing',
    'instructionCmdMultiple',
    'instructionEntrypointMultiple',
    'instructionHealthcheckMultiple',
    'instructionJSONInSingleQuotes',
    'instructionWorkdirRelative',
  ].map((rule) => [rule, ValidationSeverity.ERROR]),
);
const problems = (dockerfile: string) =>
  validate(dockerfile, STRICTEST).map(
    (problem) =>
      `line ${problem.range.start.line + 1}: ${typeof problem.message === 'string' ? problem.message : problem.message.value}`,
  );

describe('docker/', () => {
  it('the linter catches a broken Dockerfile (so a clean result means something)', () => {
    expect(
      problems('from node:22\nWORKDIR app\nCMD [\'node\']\nCMD ["node"]\n').length,
    ).toBeGreaterThanOrEqual(3);
  });

  it('Dockerfile: no linter finding, a supported Node LTS in every stage, SIGTERM straight to node', () => {
    const dockerfile = read('Dockerfile');
    expect(problems(dockerfile)).toEqual([]);
    expect([...dockerfile.matchAll(/^FROM (\S+)/gm)].map(([, image]) => image)).toEqual([
      'node:22-bookworm-slim',
      'node:22-bookworm-slim',
    ]);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/main\.js"\]$/m);
  });

  it('compose.yml: PUBLIC_BASE_URL and the credentials key come from the environment, metrics stay local', () => {
    const compose = parseYaml(read('compose.yml'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, string>; ports?: string[] }>;
    };
    expect(Object.keys(compose.services)).toEqual(['app', 'worker', 'postgres', 'redis']);
    const { app, worker } = compose.services;
    for (const instance of [app, worker])
      expect(instance.environment).toMatchObject({
        PUBLIC_BASE_URL: '${PUBLIC_BASE_URL:-}',
        DEVICE_CREDENTIALS_KEY: expect.stringMatching(/^\$\{DEVICE_CREDENTIALS_KEY:\?/) as unknown,
      });
    expect([app.environment?.SERVICE_ROLE, worker.environment?.SERVICE_ROLE]).toEqual(['api', 'worker']);
    expect(app.ports).toEqual(['3000:3000', '127.0.0.1:9464:9464']);
    expect(worker.ports).toBeUndefined();
    expect(read('compose.yml')).toContain('exec app node dist/cli/main.js tokens:create --role admin');
  });

  describe('prometheus/', () => {
    interface Rule {
      alert: string;
      expr: string;
      annotations: Record<string, string>;
    }
    const rules = (
      parseYaml(read('prometheus/alerts.yml')) as { groups: { rules: Rule[] }[] }
    ).groups.flatMap((group) => group.rules);

    it('every alert has a runbook_url naming its own section of docs/operations/alerts.md, which exists', () => {
      expect(rules.length).toBeGreaterThanOrEqual(9);
      for (const { alert, annotations } of rules) {
        const runbook = annotations.runbook_url;
        expect({ alert, runbook }).toEqual({
          alert,
          runbook: `docs/operations/alerts.md#${alert.toLowerCase()}`,
        });
        expect({ alert, broken: brokenLink(REPOSITORY, 'README.md', runbook) }).toEqual({ alert });
      }
    });

    it('every alert has a promtool test case that expects it to fire (alerts.test.yml)', () => {
      const tests = parseYaml(read('prometheus/alerts.test.yml')) as {
        rule_files: string[];
        tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
      };
      expect(tests.rule_files).toEqual(['alerts.yml']);
      const firing = new Set(
        tests.tests.flatMap((test) =>
          test.alert_rule_test.filter((check) => check.exp_alerts.length > 0).map((check) => check.alertname),
        ),
      );
      expect(rules.map((rule) => rule.alert).filter((alert) => !firing.has(alert))).toEqual([]);
    });

    it("the heap alert's limit is the Docker image's old-generation cap", () => {
      const cap = /--max-old-space-size=(\d+)/.exec(read('Dockerfile'))?.[1];
      const heap = rules.find((rule) => rule.alert === 'RestaurantOrdersHeapNearLimit')!;
      expect(heap.expr).toContain(`0.9 * ${cap} * 1024 * 1024`);
      expect(heap.annotations.summary).toContain(`${cap} MiB`);
    });

    it('prometheus.yml loads the rules and scrapes the jobs the alerts name', () => {
      const config = parseYaml(read('prometheus/prometheus.yml')) as {
        rule_files: string[];
        scrape_configs: { job_name: string }[];
      };
      expect(config.rule_files).toEqual(['alerts.yml']);
      const jobs = config.scrape_configs.map((job) => job.job_name);
      const named = rules.flatMap((rule) => [...rule.expr.matchAll(/job="([^"]+)"/g)].map(([, job]) => job));
      expect(named.length).toBeGreaterThan(0);
      expect(named.filter((job) => !jobs.includes(job))).toEqual([]);
    });
  });
});
