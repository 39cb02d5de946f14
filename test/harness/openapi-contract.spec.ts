import { createServer, type Server } from 'node:http';
import request from 'supertest';
import type { OpenApiDocument } from './openapi-contract';

const message = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const DOCUMENT: OpenApiDocument = {
  paths: {
    '/things/{id}': {
      get: {
        responses: {
          '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          '404': { content: { 'application/json': { schema: message } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'note'],
        properties: { id: { type: 'integer' }, note: { type: 'string', nullable: true } },
      },
    },
  },
};

/** What a fake service answers for each path: status, content type, raw body. */
const ANSWERS: Record<string, [number, string, string]> = {
  '/api/docs-json': [200, 'application/json', JSON.stringify(DOCUMENT)],
  '/things/1': [200, 'application/json', JSON.stringify({ id: 1, note: null })],
  '/things/2': [200, 'application/json', JSON.stringify({ id: '2', note: 'x' })],
  '/things/3': [200, 'application/json', JSON.stringify({ id: 3, note: 'x', secret: 's' })],
  '/things/4': [409, 'application/json', JSON.stringify({ message: 'Conflict.' })],
  '/things/5': [404, 'text/html', '<p>Not found</p>'],
  '/elsewhere': [200, 'application/json', '{}'],
};

/** The hook of jest.config.js (setupFilesAfterEnv) is active here, as in every spec. */
describe('the OpenAPI contract check on every supertest response', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((incoming, outgoing) => {
      const [status, type, body] = ANSWERS[incoming.url ?? ''];
      outgoing.writeHead(status, { 'content-type': type }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('lets a response through that matches its schema, nullable fields included', async () => {
    await request(url).get('/things/1').expect(200, { id: 1, note: null });
  });

  it.each([
    [
      '/things/2',
      /GET \/things\/2 answered 200 application\/json, whose body does not match the document's GET \/things\/\{id\} 200 schema:\n {2}body\/id: must be integer/,
    ],
    ['/things/3', /3 answered 200 .*\n {2}body: must NOT have additional properties \(secret\)/],
    [
      '/things/4',
      /GET \/things\/4 answered 409 application\/json, but the document's GET \/things\/\{id\} lists only 200, 404\./,
    ],
    [
      '/things/5',
      /GET \/things\/5 answered 404 text\/html, but the document's GET \/things\/\{id\} 404 has application\/json\./,
    ],
    [
      '/elsewhere',
      /GET \/elsewhere answered 200 application\/json, but the OpenAPI document has no operation for GET \/elsewhere\./,
    ],
  ])('fails the request to %s, naming the route and the mismatch', async (path, reason) => {
    const failure = await request(url)
      .get(path)
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(failure?.message).toMatch(/^OpenAPI contract: /);
    expect(failure?.message).toMatch(reason);
  });

  it("reports the spec's own failed expectation first", async () => {
    await expect(request(url).get('/things/2').expect(201)).rejects.toThrow(
      'expected 201 "Created", got 200 "OK"',
    );
  });
});
