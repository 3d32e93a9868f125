import { typeName } from '../internal/type-name.js';
import { quote } from '../internal/quote.js';
import { isStatusKind, RECORD_KINDS, STATUS_KINDS, type RecordOf, type StatusKind } from '../kinds.js';
import type { Order, Withdrawal } from '../schemas.js';
import { kindList } from './fake-kinds.js';
import { deliverEvent, type DeliverEventOptions } from './deliver-event.js';
import type { ProviderSimulator } from './provider-simulator.js';
import type { ProviderEvent } from './sign-event.js';

/** A step that patches a record of `kind`, as `fake.updateRecord(kind, id, patch)` does. */
export type TimelineRecordStep = {
  [K in StatusKind]: {
    /** Milliseconds after `playTimeline` is called. */
    atMs: number;
    /** The record's kind. */
    kind: K;
    /** The record's externalId. */
    id: string;
    /** What changes, as for `fake.updateRecord`. */
    patch: Partial<RecordOf<K>>;
  };
}[StatusKind];

/** A record step with the kind as its key: `{ atMs: 0, order: 'o-1', patch }`. */
export type TimelineKeyedStep = {
  [K in StatusKind]: Record<K, string> & {
    /** Milliseconds after `playTimeline` is called. */
    atMs: number;
    /** What changes, as for `fake.updateRecord`. */
    patch: Partial<RecordOf<K>>;
  };
}[StatusKind];

/** One step of {@link playTimeline}: patch a record, or send a provider event. */
export type TimelineStep =
  | TimelineRecordStep
  | TimelineKeyedStep
  | {
      /** Milliseconds after `playTimeline` is called (and after the events listed before it are delivered). */
      atMs: number;
      /** The provider event to send, e.g. `createEvent('otc.trade.settled', { tradeId: 't-1' })`. */
      event: ProviderEvent;
    };

/** Where a timeline's `event` steps go: one of `deliver` or `provider`. */
export interface TimelineOptions {
  /** Deliver each event with {@link deliverEvent} (retried until a 2xx); the next event waits for the delivery. */
  deliver?:
    | ({
        /** The webhook endpoint to deliver to. */
        url: string | URL;
      } & Omit<DeliverEventOptions, 'signal'>)
    | undefined;
  /** Hand each event to a provider simulator (`createProviderSimulator`), which may lose, delay or duplicate it. */
  provider?: Pick<ProviderSimulator, 'send'> | undefined;
}

/** What {@link playTimeline} changes: a fake checkout service, or anything with its `updateRecord` (or 1.1's per-kind methods). */
export type TimelineTarget =
  | {
      /** Merges a patch into a record of `kind`. */
      updateRecord<K extends StatusKind>(kind: K, externalId: string, patch: Partial<RecordOf<K>>): void;
    }
  | {
      /** Merges a patch into an order. */
      updateOrder(externalId: string, patch: Partial<Order>): void;
      /** Merges a patch into a withdrawal. */
      updateWithdrawal(externalId: string, patch: Partial<Withdrawal>): void;
    };

/** How a 1.1 target, without `updateRecord`, changes the kinds it knows. */
const UPDATE_BY_NAME: Readonly<Record<string, (fake: object, id: string, patch: object) => void>> = {
  order: (fake, id, patch) => (fake as { updateOrder(id: string, patch: object): void }).updateOrder(id, patch),
  withdrawal: (fake, id, patch) => (fake as { updateWithdrawal(id: string, patch: object): void }).updateWithdrawal(id, patch),
};

function recordOf(step: object, where: string): { kind: StatusKind; id: string; patch: object } | undefined {
  if ('event' in step) return undefined;
  const named = 'kind' in step ? [step.kind] : STATUS_KINDS.filter((kind) => kind in step);
  const kinds = STATUS_KINDS.map((kind) => RECORD_KINDS[kind].named).join(', ');
  if (named.length !== 1) throw new TypeError(`${where} must name one record (${kinds}: { kind, id, patch }) or an event`);
  const kind = named[0];
  if (!isStatusKind(kind)) throw new TypeError(`${where}.kind must be ${kindList()}, got ${quote(kind)}`);
  const id = 'kind' in step ? (step as { id?: unknown }).id : (step as Record<string, unknown>)[kind];
  if (typeof id !== 'string' || id === '')
    throw new TypeError(`${where}: the ${kind}'s externalId must be a non-empty string, got ${quote(id)}`);
  const patch = (step as { patch?: unknown }).patch;
  if (patch === null || typeof patch !== 'object') throw new TypeError(`${where}.patch must be an object, got ${typeName(patch)}`);
  return { kind, id, patch };
}

function updater(fake: TimelineTarget, kind: StatusKind, where: string): (id: string, patch: object) => void {
  if ('updateRecord' in fake && typeof fake.updateRecord === 'function') {
    return (id, patch) => fake.updateRecord(kind, id, patch);
  }
  const update = Object.hasOwn(UPDATE_BY_NAME, kind) ? UPDATE_BY_NAME[kind] : undefined;
  if (update === undefined) throw new TypeError(`${where}: the timeline's target has no updateRecord for a ${quote(kind)} record`);
  return (id, patch) => update(fake, id, patch);
}

/** A timeline being played. */
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
 * Changes the fake's records over time and sends the provider events that announce the changes. Each step runs `atMs`
 * after the call, on timers (so fake timers drive it); an event is sent once the events before it were delivered and
 * after every change due at or before its `atMs`.
 *
 * @example
 * const timeline = playTimeline(fake, [
 *   { atMs: 0, kind: 'order', id: 'o-1', patch: { settlement: { status: 'Settled' } } },
 *   { atMs: 50, event: createEvent('otc.trade.settled', { tradeId: 't-1' }) },
 * ], { deliver: { url: webhookUrl, secret: 'whsec' } });
 * await timeline.done;
 */
export function playTimeline(fake: TimelineTarget, steps: readonly TimelineStep[], options: TimelineOptions = {}): PlayingTimeline {
  const given: unknown = steps; // Array.isArray(steps) would narrow the readonly steps to any[]
  if (!Array.isArray(given)) throw new TypeError(`playTimeline: steps must be an array, got ${typeName(steps)}`);
  const send = eventSender(options);
  if (fake === null || typeof fake !== 'object')
    throw new TypeError(`playTimeline: fake must be a fake checkout service, got ${typeName(fake)}`);
  const changes: ({ id: string; patch: object; update: (id: string, patch: object) => void } | undefined)[] = [];
  for (const [index, step] of steps.entries()) {
    if (step === null || typeof step !== 'object' || typeof step.atMs !== 'number' || !(step.atMs >= 0) || !Number.isFinite(step.atMs)) {
      throw new TypeError(`playTimeline: steps[${index}].atMs must be a number of milliseconds of at least 0`);
    }
    const record = recordOf(step, `playTimeline: steps[${index}]`);
    if (record !== undefined) {
      changes[index] = { ...record, update: updater(fake, record.kind, `playTimeline: steps[${index}]`) };
      continue;
    }
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
  // one chain of deliveries, so events arrive in list order (timers fire in order of due time, ties in list order)
  let deliveries = Promise.resolve();
  for (const [index, step] of steps.entries()) {
    const change = changes[index];
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (change !== undefined) {
        try {
          change.update(change.id, change.patch);
          applied += 1;
        } catch (error) {
          errors.push(error);
        }
        settleOne();
        return;
      }
      const { event } = step as { event: ProviderEvent };
      deliveries = deliveries.then(async () => {
        if (stopping.signal.aborted) return;
        try {
          await send!(event, stopping.signal);
          applied += 1;
        } catch (error) {
          if (!stopping.signal.aborted) errors.push(error);
        }
        settleOne();
      });
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
