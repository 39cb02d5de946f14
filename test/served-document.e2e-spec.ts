import request from 'supertest';
import { startApp, type TestApp } from './harness/app';

type Node = Record<string, unknown>;

/**
 * Every object schema of the document, with where it sits: components and inline ones alike (examples, which
 * are values, not schemas, are skipped).
 */
function* objectSchemas(node: unknown, at: string): Generator<[string, Node]> {
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) yield* objectSchemas(item, `${at}/${index}`);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Node;
  if (schema.type === 'object') yield [at, schema];
  for (const [key, value] of Object.entries(schema))
    if (key !== 'example' && key !== 'examples') yield* objectSchemas(value, `${at}/${key}`);
}

/** An object schema that says nothing of its members: what a class no decorator or plugin described becomes. */
const isEmpty = (schema: Node) =>
  Object.keys((schema.properties as Node | undefined) ?? {}).length === 0 &&
  schema.additionalProperties === undefined &&
  !schema.allOf &&
  !schema.oneOf &&
  !schema.anyOf;

describe('the served OpenAPI document', () => {
  let service: TestApp;

  beforeAll(async () => {
    service = await startApp();
  });

  afterAll(async () => {
    await service.stop();
  });

  it('describes every object it names: no object schema is empty (a class the Swagger plugin skipped)', async () => {
    const document = (await request(service.url).get('/api/docs-json').expect(200)).body as Node;
    const schemas = [...objectSchemas(document, '#')];
    expect(schemas.length).toBeGreaterThan(50);
    expect(schemas.filter(([, schema]) => isEmpty(schema)).map(([at]) => at)).toEqual([]);
  });
});
