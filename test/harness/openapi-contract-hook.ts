import request from 'supertest';
import { type OpenApiDocument, OpenApiContract } from './openapi-contract';

/**
 * Jest `setupFilesAfterEnv`: every supertest exchange of every spec is checked against the OpenAPI document
 * the service under test serves (/api/docs-json), so the document cannot drift from the code. A response
 * the document does not describe, or a request it accepted (2xx) that the document does not allow, fails the
 * request, as a failed `.expect()` does, with the route and the mismatch. The document is read once per spec
 * file: every instance of one build serves the same one.
 */

const DOCUMENT_PATH = '/api/docs-json';

let contract: Promise<OpenApiContract> | undefined;

async function fetchContract(origin: string): Promise<OpenApiContract> {
  const response = await fetch(origin + DOCUMENT_PATH, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`${origin}${DOCUMENT_PATH} answered ${response.status}`);
  return new OpenApiContract((await response.json()) as OpenApiDocument);
}

export function contractFor(origin: string): Promise<OpenApiContract> {
  contract ??= fetchContract(origin).catch((error: unknown) => {
    contract = undefined;
    throw new Error(`Could not read the OpenAPI document to check a response against: ${String(error)}`);
  });
  return contract;
}

type Test = request.Test;
type Callback = NonNullable<Parameters<Test['end']>[0]>;
type Response = Parameters<Callback>[1];
interface SentRequest {
  method: string;
  url: string;
  /** superagent's own fields: the headers set (lower-case names), the query of `.query()`, the body sent. */
  _header?: Record<string, string>;
  qs?: Record<string, unknown>;
  _data?: unknown;
}

/**
 * The JSON body a supertest request sent: `.send(object)`, or a JSON string sent as is; a file of another type
 * (a CSV or NDJSON import) stays the text it is.
 */
function sentBody(data: unknown, contentType = ''): unknown {
  if (typeof data !== 'string' || /^(text\/csv|application\/x-ndjson)/i.test(contentType)) return data;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return data;
  }
}

/**
 * Why the exchange does not match the document: the response always; the request when the server accepted it
 * (2xx), since a request the service takes must be one the document allows.
 */
export async function contractMismatch(
  request: SentRequest,
  response: Response,
): Promise<string | undefined> {
  const checker = await contractFor(new URL(request.url).origin);
  const url = new URL(request.url);
  for (const [name, value] of Object.entries(request.qs ?? {})) url.searchParams.append(name, String(value));
  return (
    checker.check({
      method: request.method,
      url: request.url,
      status: response.status,
      contentType: response.headers['content-type'],
      // A body kept as text (a file) is one even when empty: an export with no rows is an empty file.
      body: response.text || typeof response.body === 'string' ? (response.body as unknown) : undefined,
    }) ??
    (response.status >= 200 && response.status < 300
      ? checker.checkRequest({
          method: request.method,
          url: url.toString(),
          headers: request._header ?? {},
          body: sentBody(request._data, request._header?.['content-type']),
        })
      : undefined)
  );
}

const { end } = request.Test.prototype as { end: (this: Test, callback?: Callback) => Test };
request.Test.prototype.end = function checkedEnd(this: Test & SentRequest, callback?: Callback): Test {
  return end.call(this, (error, response) => {
    if (!response || !callback) return callback?.(error, response);
    contractMismatch(this, response).then(
      (mismatch) =>
        callback(error ?? (mismatch ? new Error(`OpenAPI contract: ${mismatch}`) : null), response),
      (failure: unknown) => callback(error ?? (failure as Error), response),
    );
  });
};
