import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** What a scripted server does with a request: answer it, reset its connection, or never answer. */
export type Scripted =
  { status: number; body?: unknown; headers?: Record<string, string> } | 'reset' | 'hang';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ScriptedServer {
  url: string;
  /** Every request it received, in order. */
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** The server side of a failure a client must survive: the n-th request (from 0) gets `script(n)`. */
export async function scriptedServer(script: (n: number) => Scripted): Promise<ScriptedServer> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((request, response) => {
    // Recorded on arrival, so a request that is never answered is seen at once; its body follows.
    const seen = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: '' };
    const n = requests.push(seen) - 1;
    request.on('data', (chunk: Buffer) => (seen.body += chunk.toString()));
    request.on('end', () => {
      const answer = script(n);
      if (answer === 'hang') return;
      if (answer === 'reset') return void request.socket.resetAndDestroy();
      const json = answer.body === undefined ? '' : JSON.stringify(answer.body);
      response
        .writeHead(answer.status, {
          ...(json && { 'Content-Type': 'application/json' }),
          'X-Request-Id': String(request.headers['x-request-id'] ?? 'generated'),
          ...answer.headers,
        })
        .end(json);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A port nothing listens on: one the system just gave out and took back. */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ResettingProxy {
  url: string;
  /** How many connections it has reset. */
  resets(): number;
  close(): Promise<void>;
}

/**
 * A TCP relay to `target` (a URL) that lets the first `count` connections' requests through and resets each of
 * those connections when the answer starts to come back: the service carried the request out, and the client
 * never hears of it (a lost answer). Later connections are relayed both ways.
 */
export async function resettingProxy(target: string, count = 1): Promise<ResettingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let connections = 0;
  let resets = 0;
  const server = createServer((client) => {
    const upstream = createConnection(Number(port), hostname);
    const losesAnswer = connections++ < count;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream);
    if (losesAnswer) {
      upstream.once('data', () => {
        resets += 1;
        client.resetAndDestroy();
        upstream.destroy();
      });
    } else {
      upstream.pipe(client);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const proxyPort = await listen(server);
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    resets: () => resets,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function listen(server: Server | ReturnType<typeof createHttpServer>): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    }),
  );
}
