import type { NextFunction, Request, Response } from 'express';

export type Middleware = (request: Request, response: Response, next: NextFunction) => void;

/**
 * Several middlewares as one Express layer, run in order: each calls the next, an error (passed or thrown)
 * skips the rest and goes to Express. The router costs every layer a request passes through a match object
 * and closures of its own; the middlewares every request crosses are mounted as a few such sequences.
 */
export function inSequence(...middlewares: Middleware[]): Middleware {
  return (request, response, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error) return next(error);
      const middleware = middlewares[index++];
      if (!middleware) return next();
      try {
        middleware(request, response, step);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}
