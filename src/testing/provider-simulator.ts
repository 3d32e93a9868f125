import { typeName } from '../internal/type-name.js';
import { defaultFetch, deliverEvent, type DeliverEventOptions } from './deliver-event.js';
import { fleet } from './fleet.js';
import type { ProviderEvent } from './sign-event.js';

/** Options of {@link createProviderSimulator}. */
export interface ProviderSimulatorOptions {
  /**
   * The webhook URL, or the URLs of a fleet of receivers. Deliveries start at each in turn; a retry, or an attempt that
   * got no answer, goes to the next one, and a receiver that gave no answer in the last second is tried last. With
   * several URLs, `delivery.fetch` gets each attempt addressed to the receiver chosen.
   */
  url: string | readonly string[];
  /** The signing secret of the partner's webhook endpoint. */
  secret: string;
  /** The share of events never delivered, from 0 to 1. @default 0 */
  loss?: number | undefined;
  /** The share of delivered events delivered a second time, at another random delay, from 0 to 1. @default 0 */
  duplicates?: number | undefined;
  /** Each delivery waits a random time up to this many milliseconds, so events arrive late and out of order. @default 0 */
  maxDelayMs?: number | undefined;
  /** Passed to `deliverEvent` for each delivery. @default { maxAttempts: 8 } */
  delivery?: Omit<DeliverEventOptions, 'secret' | 'duplicates' | 'parallel' | 'signal'> | undefined;
  /** The random source (returning [0, 1)), e.g. a seeded one for a reproducible run. @default Math.random */
  random?: (() => number) | undefined;
}

/** What a {@link ProviderSimulator} did. */
export interface ProviderSimulatorStats {
  /** Events given to `send`. */
  sent: number;
  /** Events dropped (never delivered). */
  lost: number;
  /** Deliveries made, first copies and duplicates. */
  deliveries: number;
  /** Extra copies delivered. */
  duplicated: number;
  /** Deliveries that never got a 2xx within their attempts. */
  failed: number;
}

/** A simulated payment provider that loses, duplicates, delays and reorders the events it sends. */
export interface ProviderSimulator {
  /** Sends `event` as the provider would: maybe never, maybe twice, late and out of order. */
  send(event: ProviderEvent): void;
  /** What it did so far. */
  readonly stats: Readonly<ProviderSimulatorStats>;
  /** Resolves once every scheduled delivery has ended. */
  settled(): Promise<ProviderSimulatorStats>;
  /** Cancels the deliveries not yet started and stops retrying. */
  stop(): void;
}

/**
 * A payment provider at its worst, for testing a webhook endpoint: signed deliveries that are lost, duplicated and
 * delayed at random (hence reordered), each retried until a 2xx as `deliverEvent` does.
 *
 * @example
 * const provider = createProviderSimulator({ url: webhookUrl, secret, loss: 0.2, duplicates: 0.2, maxDelayMs: 2_000 });
 * provider.send(createEvent('otc.trade.settled', { tradeId: 't-1' }));
 * await provider.settled();
 */
export function createProviderSimulator(options: ProviderSimulatorOptions): ProviderSimulator {
  if (options === null || typeof options !== 'object')
    throw new TypeError(`createProviderSimulator options must be an object, got ${typeName(options)}`);
  const given: unknown = options.url;
  const endpoints: unknown[] = typeof given === 'string' ? [given] : Array.isArray(given) ? [...(given as unknown[])] : [];
  if (endpoints.length === 0 || !endpoints.every(isHttpUrl)) {
    throw new TypeError('createProviderSimulator: url must be an absolute http(s) URL, or a non-empty array of them');
  }
  if (typeof options.secret !== 'string' || options.secret === '')
    throw new TypeError('createProviderSimulator: secret must be a non-empty string');
  const loss = share('loss', options.loss);
  const duplicates = share('duplicates', options.duplicates);
  const maxDelayMs = options.maxDelayMs ?? 0;
  if (typeof maxDelayMs !== 'number' || !(maxDelayMs >= 0) || maxDelayMs > 2_147_483_647) {
    throw new TypeError(
      `createProviderSimulator: maxDelayMs must be a number of milliseconds from 0 to 2^31 - 1, got ${String(maxDelayMs)}`,
    );
  }
  const random = options.random ?? Math.random;
  const delivery = { maxAttempts: 8, ...options.delivery };
  const receivers = fleet(endpoints, delivery.fetch ?? defaultFetch);
  // one controller per delivery: a shared signal would get a listener per delivery waiting to retry, past the limit
  const inFlight = new Set<AbortController>();
  let stopped = false;
  const stats: ProviderSimulatorStats = { sent: 0, lost: 0, deliveries: 0, duplicated: 0, failed: 0 };
  const pending = new Set<Promise<void>>();
  const timers = new Set<ReturnType<typeof setTimeout>>();

  const deliverLater = (event: ProviderEvent): void => {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        stats.deliveries += 1;
        const controller = new AbortController();
        if (stopped) controller.abort();
        inFlight.add(controller);
        const fetch = receivers.delivery();
        const work = deliverEvent(endpoints[0]!, event, { ...delivery, fetch, secret: options.secret, signal: controller.signal }).then(
          () => undefined,
          () => {
            stats.failed += 1;
          },
        );
        pending.add(work);
        void work.finally(() => {
          pending.delete(work);
          inFlight.delete(controller);
        });
      },
      Math.floor(random() * maxDelayMs),
    );
    timers.add(timer);
  };

  return {
    send(event: ProviderEvent): void {
      stats.sent += 1;
      if (random() < loss) {
        stats.lost += 1;
        return;
      }
      deliverLater(event);
      if (random() < duplicates) {
        stats.duplicated += 1;
        deliverLater(event);
      }
    },
    stats,
    async settled(): Promise<ProviderSimulatorStats> {
      // bounded: each round waits for the deliveries in hand; timers only turn into deliveries
      while (timers.size > 0 || pending.size > 0) {
        if (pending.size > 0) await Promise.all(pending);
        else await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return { ...stats };
    },
    stop(): void {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      stopped = true;
      for (const controller of inFlight) controller.abort();
    },
  };
}

function isHttpUrl(url: unknown): url is string {
  return typeof url === 'string' && URL.canParse(url) && /^https?:$/.test(new URL(url).protocol);
}

function share(name: string, value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
    throw new TypeError(
      `createProviderSimulator: ${name} must be a number from 0 to 1, got ${typeof value === 'number' ? value : typeName(value)}`,
    );
  }
  return value;
}
