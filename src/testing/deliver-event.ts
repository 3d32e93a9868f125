import { CheckoutError } from '../errors.js';
import { typeName } from '../internal/type-name.js';
import { pause } from './faults.js';
import { MAX_TIMER_MS, signatureHeaderName } from '../internal/arguments.js';
import { loadMsw } from './load-msw.js';
import { eventBody, signEvent, type ProviderEvent } from './sign-event.js';
import { quote } from '../internal/quote.js';
import { countOf } from '../internal/count.js';

/** Options of {@link deliverEvent}. */
export interface DeliverEventOptions {
  /** The signing secret of the partner's webhook endpoint. */
  secret: string;
  /** How many more times the same body is delivered after the first, as a provider's duplicates (`1` sends it twice). @default 0 */
  duplicates?: number | undefined;
  /** Milliseconds between the end of one delivery and the start of the next. @default 0 */
  delayMs?: number | undefined;
  /** Send the deliveries at once, not one after another, to test a receiver's in-flight deduplication (`409`). @default false */
  parallel?: boolean | undefined;
  /** The signature header's name. @default 'x-provider-signature' */
  signatureHeader?: string | undefined;
  /**
   * Attempts per delivery before {@link EventDeliveryError}: a network error, a timeout, a 5xx, a redirect, 408, 409 or
   * 429 is retried; any other 4xx (a refused signature's 401) rejects at once.
   * @default 5
   */
  maxAttempts?: number | undefined;
  /** Milliseconds before the first retry; each further retry waits twice as long. @default 100 */
  retryDelayMs?: number | undefined;
  /** The longest wait between two attempts, in milliseconds. @default 2_000 */
  maxRetryDelayMs?: number | undefined;
  /** How long one attempt may take, in milliseconds. @default 10_000 */
  timeoutMs?: number | undefined;
  /**
   * The `fetch` to send with, e.g. a Hono app's `app.request`.
   * @default globalThis.fetch, marked with msw's `bypass()` for a loopback URL when msw is installed, so `setupServer` lets it pass
   */
  fetch?: ((input: Request) => Promise<Response>) | undefined;
  /** Stops delivering; the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** One POST of the event. */
export interface DeliveryAttempt {
  /** The receiver's status, or `undefined` when no response came (network error, timeout). */
  readonly status: number | undefined;
  /** Why the attempt failed without a status. */
  readonly error?: string | undefined;
  /** The first 500 characters of the response body. */
  readonly body?: string | undefined;
}

/** One delivery of the event. */
export interface Delivery {
  /** Every attempt of this delivery, in order; the last one answered 2xx. */
  readonly attempts: readonly DeliveryAttempt[];
  /** The 2xx status that ended it. */
  readonly status: number;
}

/** What {@link deliverEvent} did. */
export interface DeliveryReport {
  /** The exact body that was signed and sent. */
  readonly body: string;
  /** The signature header's value. */
  readonly signature: string;
  /** One entry per delivery (`1 + duplicates`), in the order they started. */
  readonly deliveries: readonly Delivery[];
}

/** A delivery got no 2xx within `maxAttempts` attempts, or a final 4xx (not 408, 409 or 429). */
export class EventDeliveryError extends CheckoutError {
  override readonly name = 'EventDeliveryError' as const;
  /** Every attempt of the failed delivery. */
  readonly attempts: readonly DeliveryAttempt[];

  constructor(message: string, attempts: readonly DeliveryAttempt[]) {
    super(message);
    this.attempts = attempts;
  }
}

/** A 4xx other than 408, 409 (the event is in flight at the receiver) and 429 will be as bad on every retry. */
export function isFinalRefusal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429;
}

/** Delivers an event as the payment provider would: signed, POSTed without following redirects, retried until a 2xx. */
export async function deliverEvent(
  url: string | URL,
  event: ProviderEvent | string,
  options: DeliverEventOptions,
): Promise<DeliveryReport> {
  const target = checkUrl(url);
  const body = eventBody(event);
  const o = checkOptions(options);
  const signed = await signEvent(body, o.secret, { signatureHeader: o.signatureHeader });
  const send = (): Promise<Delivery> => deliverOnce(target, signed.body, signed.headers, o);

  const deliveries: Delivery[] = [];
  const count = 1 + o.duplicates;
  if (o.parallel) {
    deliveries.push(...(await Promise.all(Array.from({ length: count }, send))));
  } else {
    for (let i = 0; i < count; i += 1) {
      if (i > 0) await wait(o.delayMs, o.signal);
      deliveries.push(await send());
    }
  }
  return { body: signed.body, signature: signed.signature, deliveries };
}

interface Resolved {
  secret: string;
  duplicates: number;
  delayMs: number;
  parallel: boolean;
  signatureHeader: string;
  maxAttempts: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  fetch: (input: Request) => Promise<Response>;
}

async function deliverOnce(url: string, body: string, headers: Readonly<Record<string, string>>, o: Resolved): Promise<Delivery> {
  const attempts: DeliveryAttempt[] = [];
  for (let attempt = 1; attempt <= o.maxAttempts; attempt += 1) {
    if (attempt > 1) await wait(Math.min(o.retryDelayMs * 2 ** (attempt - 2), o.maxRetryDelayMs), o.signal);
    o.signal?.throwIfAborted();
    // a timer, not AbortSignal.timeout: Node holds that signal only weakly, and a timer fires whatever becomes of it
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), o.timeoutMs);
    const signal = o.signal === undefined ? timeout.signal : AbortSignal.any([o.signal, timeout.signal]);
    try {
      const response = await o.fetch(new Request(url, { method: 'POST', body, headers, redirect: 'manual', signal }));
      const text = (await response.text()).slice(0, 500);
      attempts.push({ status: response.status, body: text });
      if (response.status >= 200 && response.status < 300) return { attempts, status: response.status };
      if (isFinalRefusal(response.status)) {
        throw new EventDeliveryError(
          `The receiver refused the event with status ${response.status} after ${countOf(attempts.length, 'attempt')} (a 4xx other than 408, 409 and 429 is final)`,
          attempts,
        );
      }
    } catch (error) {
      if (error instanceof EventDeliveryError) throw error;
      o.signal?.throwIfAborted();
      const reason = timeout.signal.aborted
        ? `no response within ${o.timeoutMs} ms`
        : error instanceof Error
          ? error.message
          : String(error);
      attempts.push({ status: undefined, error: reason });
    } finally {
      clearTimeout(timer);
    }
  }
  const last = attempts.at(-1);
  const outcome = last?.status === undefined ? (last?.error ?? 'no response') : `status ${last.status}`;
  throw new EventDeliveryError(`The event was not accepted after ${countOf(attempts.length, 'attempt')} (last: ${outcome})`, attempts);
}

/**
 * `globalThis.fetch`, with a loopback delivery marked by msw's `bypass()`: inside `setupServer`, msw warns about (or fails)
 * every request no handler matches, which a real local receiver never is. Other URLs still reach msw's handlers.
 */
export function defaultFetch(request: Request): Promise<Response> {
  const bypass = isLoopback(new URL(request.url).hostname) ? mswBypass() : undefined;
  return globalThis.fetch(bypass === undefined ? request : bypass(request));
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

function isLoopback(hostname: string): boolean {
  return LOOPBACK.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname) || hostname.endsWith('.localhost');
}

/** `null` where msw is not installed (then no msw can intercept either). */
let bypassOfMsw: ((request: Request) => Request) | null | undefined;

function mswBypass(): ((request: Request) => Request) | undefined {
  if (bypassOfMsw === undefined) {
    try {
      const { bypass } = loadMsw();
      bypassOfMsw = typeof bypass === 'function' ? bypass : null;
    } catch {
      bypassOfMsw = null;
    }
  }
  return bypassOfMsw ?? undefined;
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  signal?.throwIfAborted();
  return pause(ms, signal).then(() => signal?.throwIfAborted());
}

function checkUrl(url: unknown): string {
  let parsed: URL;
  try {
    parsed = new URL(url instanceof URL ? url.href : (url as string));
  } catch {
    throw new TypeError(`deliverEvent: url must be an absolute http(s) URL, got ${typeName(url)}`);
  }
  if (typeof url !== 'string' && !(url instanceof URL)) throw new TypeError('deliverEvent: url must be a string or a URL');
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`deliverEvent: url must use http or https, got ${quote(parsed.protocol)}`);
  }
  return parsed.href;
}

function checkOptions(options: DeliverEventOptions): Resolved {
  if (options === null || typeof options !== 'object') throw new TypeError('deliverEvent: options must be an object with a secret');
  if (typeof options.secret !== 'string' || options.secret.trim() === '')
    throw new TypeError('deliverEvent: secret must be a non-empty string, not whitespace only');
  const whole = (name: string, value: unknown, fallback: number, min: number): number => {
    const v = value ?? fallback;
    if (!Number.isInteger(v) || (v as number) < min)
      throw new TypeError(`deliverEvent: ${name} must be a whole number of at least ${min}, got ${quote(v)}`);
    return v as number;
  };
  const ms = (name: string, value: unknown, fallback: number, min: number): number => {
    const v = value ?? fallback;
    // a timer holds at most MAX_TIMER_MS: a longer one fires at once
    if (typeof v !== 'number' || !(v >= min && v <= MAX_TIMER_MS)) {
      throw new TypeError(`deliverEvent: ${name} must be a number of milliseconds from ${min} to ${MAX_TIMER_MS}, got ${quote(v)}`);
    }
    return v;
  };
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new TypeError('deliverEvent: fetch must be a function');
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    throw new TypeError('deliverEvent: signal must be an AbortSignal');
  if (options.parallel !== undefined && typeof options.parallel !== 'boolean')
    throw new TypeError('deliverEvent: parallel must be a boolean');
  return {
    secret: options.secret,
    duplicates: whole('duplicates', options.duplicates, 0, 0),
    delayMs: ms('delayMs', options.delayMs, 0, 0),
    parallel: options.parallel ?? false,
    signatureHeader: signatureHeaderName(options.signatureHeader),
    maxAttempts: whole('maxAttempts', options.maxAttempts, 5, 1),
    retryDelayMs: ms('retryDelayMs', options.retryDelayMs, 100, 0),
    maxRetryDelayMs: ms('maxRetryDelayMs', options.maxRetryDelayMs, 2_000, 0),
    timeoutMs: ms('timeoutMs', options.timeoutMs, 10_000, 1),
    fetch: options.fetch ?? defaultFetch,
    signal: options.signal,
  };
}
