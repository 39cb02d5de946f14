import type { NextFunction, Request, Response } from 'express';
import { inSequence, type Middleware } from './middleware-sequence';

const request = {} as Request;
const response = {} as Response;

function run(middleware: Middleware): Promise<unknown[]> {
  return new Promise((resolve) =>
    middleware(request, response, ((...args: unknown[]) => resolve(args)) as NextFunction),
  );
}

describe('inSequence', () => {
  it('runs every middleware in order, then goes on', async () => {
    const seen: string[] = [];
    const record =
      (name: string): Middleware =>
      (_request, _response, next) => {
        seen.push(name);
        next();
      };
    expect(await run(inSequence(record('a'), record('b'), record('c')))).toEqual([]);
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('waits for a middleware that calls next later', async () => {
    const seen: string[] = [];
    const later: Middleware = (_request, _response, next) =>
      setTimeout(() => (seen.push('later'), next()), 5);
    const after: Middleware = (_request, _response, next) => (seen.push('after'), next());
    await run(inSequence(later, after));
    expect(seen).toEqual(['later', 'after']);
  });

  it('skips the rest on an error passed to next or thrown, and hands it to Express', async () => {
    const failure = new Error('refused');
    const never = jest.fn<void, Parameters<Middleware>>();
    const passes: Middleware = (_request, _response, next) => next(failure);
    const throws: Middleware = () => {
      throw failure;
    };
    expect(await run(inSequence(passes, never))).toEqual([failure]);
    expect(await run(inSequence(throws, never))).toEqual([failure]);
    expect(never).not.toHaveBeenCalled();
  });

  it('answers without going on when a middleware ends the response', async () => {
    const onward = jest.fn();
    const answers: Middleware = () => undefined;
    inSequence(answers)(request, response, onward);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(onward).not.toHaveBeenCalled();
  });
});
