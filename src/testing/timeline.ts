import { typeName } from '../internal/type-name.js';
import type { Order, Withdrawal } from '../schemas.js';
import { deliverEvent, type DeliverEventOptions } from './deliver-event.js';
import type { ProviderSimulator } from './provider-simulator.js';
import type { ProviderEvent } from './sign-event.js';

/**
 * One step of a {@link playTimeline}: at `atMs` after the start, patch an order or a withdrawal,
 * or send a provider event (signed and delivered through the timeline's `deliver` or `provider`).
 */
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
    }
  | {
      /** Milliseconds after `playTimeline` is called (and after the events listed before it were delivered). */
      atMs: number;
      /** The provider event to send, e.g. `createEvent('otc.trade.settled', { tradeId: 't-1' })`. */
      event: ProviderEvent;
    };

/** Where a timeline's `event` steps go: one of `deliver` or `provider`. */
export interface TimelineOptions {
  /**
   * Sign and deliver each event to a webhook endpoint with {@link deliverEvent} (its retries until
   * a 2xx); the next step waits for the delivery. `url` and `secret` are required.
   */
  deliver?:
    | ({
        /** The webhook endpoint to deliver to. */
        url: string | URL;
      } & Omit<DeliverEventOptions, 'signal'>)
    | undefined;
  /** Hand each event to a provider simulator (`createProviderSimulator`), which may lose, delay or duplicate it. */
  provider?: Pick<ProviderSimulator, 'send'> | undefined;
}

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
 * Changes the fake's records over time, as the real service does while a checkout runs, and sends
 * the provider events that announce the changes: each step runs `atMs` milliseconds after the call
 * (timers, so `vi.useFakeTimers()` drives it); an event is sent once the events listed before it
 * were delivered, after every status change due at or before its `atMs`, so it never arrives before
 * the change it announces. Use it to test a status tracker, a poller
 * or a webhook receiver against records that move on their own.
 *
 * @example
 * fake.setOrder({ externalId: 'o-1', currency: 'USDT', settlement: { status: 'Pending', tradeId: 't-1' } });
 * const timeline = playTimeline(fake, [
 *   { atMs: 0, order: 'o-1', patch: { settlement: { status: 'Settled' } } },
 *   { atMs: 50, event: createEvent('otc.trade.settled', { tradeId: 't-1' }) },
 * ], { deliver: { url: webhookUrl, secret: 'whsec' } });
 * await timeline.done;
 */
export function playTimeline(fake: TimelineTarget, steps: readonly TimelineStep[], options: TimelineOptions = {}): PlayingTimeline {
  const given: unknown = steps; // Array.isArray(steps) would narrow the readonly steps to any[]
  if (!Array.isArray(given)) throw new TypeError(`playTimeline: steps must be an array, got ${typeName(steps)}`);
  const send = eventSender(options);
  for (const [index, step] of steps.entries()) {
    if (step === null || typeof step !== 'object' || typeof step.atMs !== 'number' || !(step.atMs >= 0) || !Number.isFinite(step.atMs)) {
      throw new TypeError(`playTimeline: steps[${index}].atMs must be a number of milliseconds of at least 0`);
    }
    if (!('order' in step) && !('withdrawal' in step) && !('event' in step))
      throw new TypeError(`playTimeline: steps[${index}] must name an order, a withdrawal or an event`);
    if ('event' in step) {
      if (
        step.event === null ||
        typeof step.event !== 'object' ||
        typeof step.event.eventId !== 'string' ||
        typeof step.event.type !== 'string'
      )
        throw new TypeError(`playTimeline: steps[${index}].event must be a provider event ({ eventId, type, ... }: createEvent makes one)`);
      if (send === undefined)
        throw new TypeError(
          `playTimeline: steps[${index}] is an event: pass { deliver: { url, secret } } or { provider } as the third argument`,
        );
    }
  }
  const stopping = new AbortController();
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
  // events are sent one after the other, each once the one before it was delivered: the order of
  // the list is the order of arrival, and a status change due at or before an event's atMs is
  // applied before the event leaves (timers fire in order of due time, ties in list order)
  let deliveries = Promise.resolve();
  for (const step of steps) {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if ('event' in step) {
        deliveries = deliveries.then(async () => {
          if (stopping.signal.aborted) return;
          try {
            await send!(step.event, stopping.signal);
            applied += 1;
          } catch (error) {
            if (!stopping.signal.aborted) errors.push(error);
          }
          settleOne();
        });
        return;
      }
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
      stopping.abort();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      finish();
    },
  };
}

/** How the timeline sends an event, or `undefined` when it was given no way to. */
function eventSender(options: TimelineOptions): ((event: ProviderEvent, signal: AbortSignal) => Promise<void>) | undefined {
  if (options === null || typeof options !== 'object')
    throw new TypeError(`playTimeline: options must be an object, got ${typeName(options)}`);
  for (const key of Object.keys(options)) {
    if (key !== 'deliver' && key !== 'provider')
      throw new TypeError(`playTimeline: unknown option ${JSON.stringify(key)} (deliver, provider)`);
  }
  const { deliver, provider } = options;
  if (deliver !== undefined && provider !== undefined) throw new TypeError('playTimeline: pass deliver or provider, not both');
  if (provider !== undefined) {
    if (provider === null || typeof provider.send !== 'function')
      throw new TypeError('playTimeline: provider must be a provider simulator (createProviderSimulator)');
    return (event) => {
      provider.send(event);
      return Promise.resolve();
    };
  }
  if (deliver !== undefined) {
    if (deliver === null || typeof deliver !== 'object') throw new TypeError('playTimeline: deliver must be { url, secret, ... }');
    const { url, ...rest } = deliver;
    return async (event, signal) => {
      await deliverEvent(url, event, { ...rest, signal });
    };
  }
  return undefined;
}
