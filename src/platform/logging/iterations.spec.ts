import { Iterations } from './iterations';

describe("the background jobs' iterations in progress (a worker's readiness)", () => {
  it('names a job whose iteration has outrun its bound, and forgets it once the iteration ends', () => {
    const iterations = new Iterations();
    iterations.started('webhook-dispatch', 1_000, 10_000);
    iterations.started('other', 60_000, 10_000);
    expect(iterations.stalled(11_000)).toEqual([]);
    expect(iterations.stalled(11_001)).toEqual(['webhook-dispatch']);
    iterations.ended('webhook-dispatch');
    expect(iterations.stalled(11_001)).toEqual([]);
    expect(iterations.stalled(70_001)).toEqual(['other']);
  });

  it('times the next iteration of a job from its own start', () => {
    const iterations = new Iterations();
    iterations.started('webhook-dispatch', 1_000, 0);
    iterations.ended('webhook-dispatch');
    iterations.started('webhook-dispatch', 1_000, 5_000);
    expect(iterations.stalled(5_500)).toEqual([]);
  });
});
