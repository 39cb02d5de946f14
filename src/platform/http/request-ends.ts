import type { IncomingMessage } from 'node:http';
import type { Principal } from '../../kernel/access/principal';
import type { RequestContext } from './request-context';

/** A request the request log's middleware saw end: what its line says, and the request as it was served. */
export interface EndedRequest {
  request: IncomingMessage &
    RequestContext & {
      /** The caller, once the authentication guard resolved its token. */
      user?: Principal | null;
      /** The route's parameters, once routing matched it. */
      params?: Record<string, string>;
    };
  status: number;
  /** When the request arrived, in ms since the epoch. */
  startedAt: number;
  durationMs: number;
  /** The route template, undefined for a request nothing served. */
  route: string | undefined;
  /** The path without its query. */
  path: string;
}

export type RequestEndListener = (ended: EndedRequest) => void;

/**
 * Where a module hears of every request that ended, from the one middleware that times and logs them
 * (createRequestLog): a listener runs on the request's `finish`, after the response is sent, and must not throw
 * or wait (the request log's writer only buffers).
 */
export class RequestEnds {
  private listeners: RequestEndListener[] = [];

  listen(listener: RequestEndListener): void {
    this.listeners = [...this.listeners, listener];
  }

  get listened(): boolean {
    return this.listeners.length > 0;
  }

  emit(ended: EndedRequest): void {
    for (const listener of this.listeners) listener(ended);
  }
}
