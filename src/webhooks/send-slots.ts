/** One attempt in flight: its endpoint, and the signal that ends it early when the endpoint stops receiving. */
export interface SendSlot {
  endpointId: number;
  signal: AbortSignal;
  /** Frees the slot once the attempt has ended, after `durationMs` (undefined: it ended early, not timed). */
  release(durationMs?: number): void;
}

/**
 * What a claim knows of the endpoints this dispatcher is busy with, one entry per endpoint (`endpointIds[i]`):
 * its attempts in flight, and how its deliveries that must wait for a slot are spread out (a pace, from an end).
 */
export interface Sending {
  endpointIds: number[];
  inFlight: number[];
  /** How often a slot of the endpoint is expected to free up, in ms: its attempts' duration divided by its cap. */
  paceMs: number[];
  /** Epoch ms after which the next waiting delivery of the endpoint is placed (0: from now). */
  waitUntil: number[];
  /** Endpoints at their cap whose slots free up faster than SKIPPED_PACE_MS: a claim passes over their due deliveries. */
  skipped: number[];
}

/**
 * A delivery expected to wait this long or more for a slot of its endpoint is moved out of the way of the others'
 * (a write); one that waits less stays due, and the next claims read it again, which costs less.
 */
export const MOVED_AFTER_MS = 1_000;
/**
 * The pace under which an endpoint's deliveries are passed over while it is at its cap: its slots free up so often
 * that none of them would be moved, and reading them again at every claim would cost more than passing over.
 */
export const SKIPPED_PACE_MS = 5;
/** How much of an endpoint's duration average the latest attempt weighs. */
const DURATION_WEIGHT = 0.3;
/** An endpoint with nothing in flight and no waiting delivery placed is forgotten this long after its last use. */
const FORGET_AFTER_MS = 60_000;

interface Flow {
  inFlight: Set<{ controller: AbortController; startedAt: number }>;
  /** Average duration of its attempts (weighted towards the latest); undefined until one ended. */
  durationMs?: number;
  /** Until when its waiting deliveries are placed (epoch ms). */
  waitUntil: number;
  lastUsed: number;
}

/**
 * The webhook attempts one dispatcher has in flight (CONTRACT §5, endpoints isolated): at most `capacity` in all
 * and `perEndpoint` to any one endpoint, so a receiver that is slow or hangs holds a few slots of its own and
 * never the others'.
 *
 * An endpoint's due deliveries beyond its free slots wait. Its pace is how often a slot is expected to free up: its
 * average attempt duration, or how long its oldest attempt has been in flight when longer, divided by its cap. A
 * claim moves those that would wait MOVED_AFTER_MS or more out of the way of the others', each to the time a slot
 * is expected to free up, one pace after the other, after those already placed: a slow or hung endpoint's
 * deliveries never pile up ahead of the other endpoints' due ones, so a claim reads few it cannot take. The others
 * stay due; a fast endpoint's (a pace under SKIPPED_PACE_MS) are passed over while it is at its cap.
 *
 * An endpoint stopped (deleted, or gone) has its attempts ended at once, and an attempt of it claimed just before
 * the stop is ended as it starts: the stop is remembered for `stopMemoryMs` (a claim's lease, after which no such
 * claim can still be starting).
 */
export class SendSlots {
  private readonly flows = new Map<number, Flow>();
  private readonly stoppedUntil = new Map<number, { until: number; reason: string }>();
  private count = 0;

  constructor(
    readonly capacity: number,
    readonly perEndpoint: number,
    private readonly stopMemoryMs: number,
  ) {}

  get inFlight(): number {
    return this.count;
  }

  get free(): number {
    return this.capacity - this.count;
  }

  /** A slot for an attempt to the endpoint (the claim kept within the bounds): aborted already if it stopped. */
  take(endpointId: number, now = Date.now()): SendSlot {
    const flow = this.flowOf(endpointId, now);
    const attempt = { controller: new AbortController(), startedAt: now };
    flow.inFlight.add(attempt);
    this.count += 1;
    const stopped = this.stoppedUntil.get(endpointId);
    if (stopped && stopped.until > now) attempt.controller.abort(stopped.reason);
    let released = false;
    return {
      endpointId,
      signal: attempt.controller.signal,
      release: (durationMs?: number) => {
        if (released) return;
        released = true;
        this.count -= 1;
        flow.inFlight.delete(attempt);
        flow.lastUsed = Date.now();
        if (durationMs === undefined) return;
        flow.durationMs =
          flow.durationMs === undefined
            ? durationMs
            : flow.durationMs + DURATION_WEIGHT * (durationMs - flow.durationMs);
      },
    };
  }

  /** A claim placed waiting deliveries of the endpoint up to `until` (epoch ms). */
  placedUntil(endpointId: number, until: number, now = Date.now()): void {
    const flow = this.flowOf(endpointId, now);
    flow.waitUntil = Math.max(flow.waitUntil, until);
  }

  /** Ends the endpoint's attempts in flight with `reason`, and any of its attempts that starts soon after. */
  stop(endpointId: number, reason: string, now = Date.now()): void {
    for (const [id, stopped] of this.stoppedUntil) if (stopped.until <= now) this.stoppedUntil.delete(id);
    this.stoppedUntil.set(endpointId, { until: now + this.stopMemoryMs, reason });
    for (const attempt of this.flows.get(endpointId)?.inFlight ?? []) attempt.controller.abort(reason);
  }

  /** What the next claim must know; endpoints idle for a while are forgotten here. */
  sending(now = Date.now()): Sending {
    const sending: Sending = { endpointIds: [], inFlight: [], paceMs: [], waitUntil: [], skipped: [] };
    for (const [endpointId, flow] of this.flows) {
      if (flow.inFlight.size === 0 && flow.waitUntil < now && flow.lastUsed < now - FORGET_AFTER_MS) {
        this.flows.delete(endpointId);
        continue;
      }
      const pace = this.paceOf(flow, now);
      sending.endpointIds.push(endpointId);
      sending.inFlight.push(flow.inFlight.size);
      sending.paceMs.push(pace);
      sending.waitUntil.push(flow.waitUntil > now ? flow.waitUntil : 0);
      if (flow.inFlight.size >= this.perEndpoint && pace < SKIPPED_PACE_MS) sending.skipped.push(endpointId);
    }
    return sending;
  }

  /** Its attempts' average duration, or its oldest attempt's time in flight when longer, divided by the cap. */
  private paceOf(flow: Flow, now: number): number {
    let duration = flow.durationMs ?? 0;
    for (const attempt of flow.inFlight) duration = Math.max(duration, now - attempt.startedAt);
    return duration / this.perEndpoint;
  }

  private flowOf(endpointId: number, now: number): Flow {
    let flow = this.flows.get(endpointId);
    if (!flow) this.flows.set(endpointId, (flow = { inFlight: new Set(), waitUntil: 0, lastUsed: now }));
    return flow;
  }
}
