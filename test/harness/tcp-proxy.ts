import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay between the service and PostgreSQL, so a spec can take the database away (connections
 * reset, new ones refused), or stall the link (bytes held, nothing refused: a network that drops packets),
 * and give it back, without touching the server other specs share.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  /** While set, every byte either way waits here instead of being relayed. */
  private held?: (() => void)[];
  /** How long every byte takes each way (a link to another zone): 0 relays at once. */
  latencyMs = 0;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** A proxy in front of the database of `databaseUrl`; `url` is the same URL through the proxy. */
  static async for(databaseUrl: string): Promise<{ proxy: TcpProxy; url: string }> {
    const target = new URL(databaseUrl);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.open();
    target.hostname = '127.0.0.1';
    target.port = String(proxy.port);
    return { proxy, url: target.toString() };
  }

  open(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = createConnection(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      this.relay(client, upstream);
      this.relay(upstream, client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    return new Promise((resolve) =>
      this.server!.listen(this.port, '127.0.0.1', () => {
        const address = this.server!.address();
        if (typeof address === 'object' && address) this.port = address.port;
        resolve();
      }),
    );
  }

  private relay(from: Socket, to: Socket): void {
    from.on('data', (chunk: Buffer) => {
      if (this.held) this.held.push(() => to.write(chunk));
      // Timers of equal delay run in the order they were set: the bytes keep their order.
      else if (this.latencyMs > 0) setTimeout(() => to.write(chunk), this.latencyMs);
      else to.write(chunk);
    });
  }

  /** The link stalls: connections stay open and new ones are accepted, but no byte gets through. */
  blackhole(): void {
    this.held ??= [];
  }

  /** The link comes back: what was held is delivered, as TCP retransmission would, and relaying resumes. */
  restore(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const deliver of held) deliver();
  }

  /** The database "goes away": every open connection is reset, new ones are refused. */
  async cut(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server?.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}
