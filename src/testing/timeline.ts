import { typeName } from '../internal/type-name.js';
import type { Order, Withdrawal } from '../schemas.js';

/** One step of a {@link playTimeline}: at `atMs` after the start, patch an order or a withdrawal. */
export type TimelineStep =
  | {
      /** Milliseconds after `playTimeline` is called. */
      atMs: number;
      /** The order's externalId. */
      order: string;
      /** What changes, as for `fake.updateOrder` (`settlement` is merged field by field). */
      patch: Partial<Order>;
    }
  | {
      /** Milliseconds after `playTimeline` is called. */
      atMs: number;
      /** The withdrawal's externalId. */
      withdrawal: string;
      /** What changes, as for `fake.updateWithdrawal`. */
      patch: Partial<Withdrawal>;
    };

/**
 * What {@link playTimeline} changes: a fake checkout service (`createFakeCheckout()`).
 */
export interface TimelineTarget {
  /** Merges a patch into an order. */
  updateOrder(externalId: string, patch: Partial<Order>): void;
  /** Merges a patch into a withdrawal. */
  updateWithdrawal(externalId: string, patch: Partial<Withdrawal>): void;
}

/**
 * A timeline being played: `done` resolves once every step was applied; `stop()` cancels the rest.
 */
export interface PlayingTimeline {
  /** Resolves after the last step (never rejects: a step that throws is counted in `errors`). */
  readonly done: Promise<void>;
  /** Steps applied so far. */
  readonly applied: number;
  /** What the steps that could not be applied threw (e.g. an unknown externalId). */
  readonly errors: readonly unknown[];
  /** Cancels the steps not yet applied. */
  stop(): void;
}

/**
 * Changes the fake's records over time, as the real service does while a checkout runs: each step
 * patches its record `atMs` milliseconds after the call (timers, so `vi.useFakeTimers()` drives
 * it). Use it to test a status tracker or a poller against records that move on their own.
 *
 * @example
 * fake.setOrder({ externalId: 'o-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
 * const timeline = playTimeline(fake, [
 *   { atMs: 3_000, order: 'o-1', patch: { settlement: { status: 'Paid' } } },
 *   { atMs: 9_000, order: 'o-1', patch: { settlement: { status: 'Settled' } } },
 * ]);
 * await timeline.done;
 */
export function playTimeline(fake: TimelineTarget, steps: readonly TimelineStep[]): PlayingTimeline {
  const given: unknown = steps; // Array.isArray(steps) would narrow the readonly steps to any[]
  if (!Array.isArray(given)) throw new TypeError(`playTimeline: steps must be an array, got ${typeName(steps)}`);
  for (const [index, step] of steps.entries()) {
    if (step === null || typeof step !== 'object' || typeof step.atMs !== 'number' || !(step.atMs >= 0) || !Number.isFinite(step.atMs)) {
      throw new TypeError(`playTimeline: steps[${index}].atMs must be a number of milliseconds of at least 0`);
    }
    if (!('order' in step) && !('withdrawal' in step))
      throw new TypeError(`playTimeline: steps[${index}] must name an order or a withdrawal`);
  }
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const errors: unknown[] = [];
  let applied = 0;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let left = steps.length;
  const settleOne = () => {
    left -= 1;
    if (left === 0) finish();
  };
  if (left === 0) finish();
  for (const step of steps) {
    const timer = setTimeout(() => {
      timers.delete(timer);
      try {
        if ('order' in step) fake.updateOrder(step.order, step.patch);
        else fake.updateWithdrawal(step.withdrawal, step.patch);
        applied += 1;
      } catch (error) {
        errors.push(error);
      }
      settleOne();
    }, step.atMs);
    timers.add(timer);
  }
  return {
    done,
    get applied() {
      return applied;
    },
    errors,
    stop() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      finish();
    },
  };
}
