import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import ts from 'typescript';
import { startService, type RunningService } from '../harness/service';

/**
 * A second generator, beside openapi-typescript (clients/typescript, test/typescript-client.e2e-spec.ts): the
 * client swagger-typescript-api generates from the served document, into a scratch folder, and the program of
 * test/clients/swagger-typescript-api/program.ts, which calls every operation through it, compiled together
 * under `strict`. The program may cast nothing, and must call every operation the document lists.
 */

const root = join(__dirname, '..', '..');
const PROGRAM = join(root, 'test/clients/swagger-typescript-api/program.ts');

describe('the client swagger-typescript-api generates from the document', () => {
  let service: RunningService;
  let dir: string;
  let document: { paths: Record<string, Record<string, { operationId: string }>> };

  beforeAll(async () => {
    service = await startService();
    document = (await request(service.url).get('/api/docs-json').expect(200)).body as typeof document;
    dir = mkdtempSync(join(tmpdir(), 'roa-swagger-typescript-api-'));
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await service.stop();
  });

  it('compiles under strict with a program that calls every operation, with no error', () => {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
    // Without --http-client: the CLI takes any value of it for axios; fetch is its default.
    const generate = spawnSync(
      process.execPath,
      [
        join(root, 'node_modules/swagger-typescript-api/dist/cli.mjs'),
        'generate',
        `--path=${join(dir, 'openapi.json')}`,
        `--output=${dir}`,
        '--name=api.ts',
        '--single-http-client',
        '--silent',
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(generate.stderr).toBe('');
    expect(generate.status).toBe(0);

    copyFileSync(PROGRAM, join(dir, 'program.ts'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2023',
          lib: ['ES2023', 'DOM'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          types: [],
        },
        files: ['program.ts'],
      }),
    );
    const compile = spawnSync(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(compile.stdout + compile.stderr).toBe('');
    expect(compile.status).toBe(0);
  }, 240_000);

  it('is a program that casts nothing and calls every operation of the document', () => {
    const source = ts.createSourceFile(PROGRAM, readFileSync(PROGRAM, 'utf8'), ts.ScriptTarget.ES2023, true);
    const called = new Set<string>();
    const casts: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression))
        called.add(node.expression.name.text);
      const constAssertion =
        ts.isAsExpression(node) &&
        ts.isTypeReferenceNode(node.type) &&
        node.type.typeName.getText(source) === 'const';
      if (
        (ts.isAsExpression(node) && !constAssertion) ||
        ts.isTypeAssertionExpression(node) ||
        ts.isNonNullExpression(node)
      )
        casts.push(node.getText(source));
      ts.forEachChild(node, visit);
    };
    visit(source);
    const operations = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId),
    );
    expect(operations.length).toBeGreaterThan(30);
    expect(operations.filter((operationId) => !called.has(operationId))).toEqual([]);
    expect(casts).toEqual([]);
  });
});
