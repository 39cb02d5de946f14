import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate, ValidationSeverity, type ValidatorSettings } from 'dockerfile-utils';
import { parse as parseYaml } from 'yaml';

/**
 * The Docker files, checked without a Docker daemon (these machines have none): the Dockerfile with the
 * dockerfile-utils linter (the one behind VS Code's Docker support) at its strictest, since hadolint is not
 * installable here (neither a Debian package nor an npm package that ships its binary; .ci/run runs it when
 * it is on PATH), and the compose file's shape.
 */
const DOCKER = join(__dirname, '..', 'docker');
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
    const compose = parseYaml(read('compose.yml')) as {
      services: Record<string, { environment?: Record<string, string>; ports?: string[] }>;
    };
    expect(Object.keys(compose.services)).toEqual(['app', 'postgres', 'redis']);
    const app = compose.services.app;
    expect(app.environment).toMatchObject({
      PUBLIC_BASE_URL: '${PUBLIC_BASE_URL:-}',
      DEVICE_CREDENTIALS_KEY: expect.stringMatching(/^\$\{DEVICE_CREDENTIALS_KEY:\?/) as unknown,
    });
    expect(app.ports).toEqual(['3000:3000', '127.0.0.1:9464:9464']);
    expect(read('compose.yml')).toContain('exec app node dist/cli/main.js tokens:create --role admin');
  });
});
