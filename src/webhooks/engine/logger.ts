import { ignoreFailure } from '../../internal/ignore-failure.js';
import { quote } from '../../internal/quote.js';
import { debugLogging, describeLineError, stderrLine } from '../../internal/stderr-log.js';
import type { WebhookOutcome } from './outcome.js';

/**
 * What failed, as a plain object: an `Error` itself would serialise to `{}` in a JSON logger (its
 * fields are not enumerable). Errors of the SDK never carry secrets; an error thrown by `onEvent`
 * is shown as it is.
 */
export interface WebhookLogError {
  /** The error's class name, e.g. `ServerError`, `PostgresStoreError`, `TypeError`. */
  name: string;
  /** The error's message (for a thrown value that is not an `Error`: that value as text, or its type). */
  message: string;
  /** The HTTP status, for an `ApiError` from a status read. */
  status?: number;
  /** The service's `x-request-id`, for an `ApiError` that carried one. */
  requestId?: string;
  /** The store operation that failed (`claim`, `complete`…), for a `RedisStoreError` or a `PostgresStoreError`. */
  operation?: string;
  /** The stack trace, where the runtime gives one. */
  stack?: string;
  /** The errors an `AggregateError` holds (e.g. `onEvent`'s and then the release's). */
  errors?: WebhookLogError[];
}

/**
 * One structured entry per delivery (plus a `late` one when a timed-out delivery's work ends).
 * It never holds a secret, a signature or the body.
 */
export interface WebhookLogEntry {
  /** The event's id, once the body was verified and parsed. */
  eventId?: string;
  /** The event's type, once the body was verified and parsed. */
  type?: string;
  /** How the delivery ended. */
  outcome: WebhookOutcome;
  /** The HTTP status answered. */
  status: number;
  /** Milliseconds from the delivery's arrival to its answer (to the end of the work for a `late` entry). */
  ms: number;
  /** Whether the status read confirmed the event, when `onEvent` ran. */
  confirmed?: boolean;
  /**
   * `true` on the second entry of a delivery that timed out: the work went on after the 503 and
   * ended with this `outcome` (`status` is what it would have answered).
   */
  late?: true;
  /** What failed, for `failed`, `store-unavailable`, `misconfigured` and the like, as a plain object. */
  error?: WebhookLogError;
}

/**
 * Where the handler reports deliveries: a function, or a logger object with `info`, `warn` and
 * `error` methods that take an object first (pino, `console`). On an object, `handled`,
 * `duplicate` and `in-flight` go to `info`; refused or timed-out deliveries (`bad-signature`,
 * `invalid`, `too-large`, `aborted`, `draining`, `timeout`) to `warn`; `failed`, `misconfigured` and
 * `store-unavailable` to `error`. A logger that throws is ignored.
 *
 * Without a logger, each delivery that fails (`onEvent` threw, a status read or the store failed,
 * or its verified event was still being handled at `responseTimeoutMs`) writes one line to stderr
 * (a timed-out one whose work then fails, a second, `late`, line); with `CHECKOUT_LOG=debug` in
 * the environment, every delivery does.
 * `logger: false` writes nothing at all.
 *
 * @example
 * createWebhookHandler({ ..., logger: (entry) => metrics.increment(`webhook.${entry.outcome}`) });
 * createWebhookHandler({ ..., logger: pino() });
 */
export type WebhookLogger =
  | ((entry: WebhookLogEntry) => void)
  | {
      /** Gets the entries of deliveries handled or skipped as duplicates. */
      info(entry: WebhookLogEntry): unknown;
      /**
       * Gets the entries of rejected deliveries (bad signature, size, payload), and once, when the
       * handler is created, a {@link WebhookWarning} about a configuration that cannot work as meant.
       */
      warn(entry: WebhookLogEntry | WebhookWarning): unknown;
      /** Gets the entries of deliveries that failed (store, confirmation, `onEvent`). */
      error(entry: WebhookLogEntry): unknown;
    };

const LEVEL: Readonly<Record<WebhookOutcome, 'info' | 'warn' | 'error'>> = {
  'method-not-allowed': 'warn',
  'unsupported-encoding': 'warn',
  handled: 'info',
  duplicate: 'info',
  'in-flight': 'info',
  'bad-signature': 'warn',
  invalid: 'warn',
  'too-large': 'warn',
  aborted: 'warn',
  draining: 'warn',
  timeout: 'warn',
  failed: 'error',
  misconfigured: 'error',
  'store-unavailable': 'error',
};

/** Writes one entry, never throwing. */
export type LogWrite = (entry: WebhookLogEntry) => void;

/**
 * Whether a delivery failed: `onEvent`, a read, the store, or the raw body, or it was answered 503
 * at `responseTimeoutMs` while its verified event was being handled (what is written to stderr by default).
 */
function isFailure(entry: WebhookLogEntry): boolean {
  // a `handled` entry with an error: onEvent ran but the store could not mark the event done
  if (LEVEL[entry.outcome] === 'error' || (entry.outcome === 'handled' && entry.error !== undefined)) return true;
  // a hung onEvent or read would otherwise leave no trace at all; a timeout without an eventId is
  // a body still arriving (a slow sender, which anyone can be), not a failure of the handling
  return entry.outcome === 'timeout' && entry.eventId !== undefined && entry.late !== true;
}

/**
 * The `logger` option as one writer, resolved once: the partner's logger (a throw or a rejection is
 * ignored), nothing for `false`, or, without a logger, one stderr line per failed delivery (per
 * delivery with `CHECKOUT_LOG=debug`, any case).
 */
export function logWriter(logger: WebhookLogger | false | undefined): LogWrite {
  if (logger === false) return () => {};
  if (logger !== undefined) {
    // a broken logger (one that throws, or an async one that rejects) must not turn a handled event
    // into a failed delivery, nor end the process with an unhandled rejection
    return (entry) => ignoreFailure(() => (typeof logger === 'function' ? logger(entry) : logger[LEVEL[entry.outcome]](entry)));
  }
  const every = debugLogging();
  return (entry) => {
    if (every || isFailure(entry)) stderrLine(logLine(entry));
  };
}

/**
 * One line for stderr: `checkout-partner-sdk webhook <outcome> status=… eventId="…" type="…" ms=…`
 * and the error's name and message. Every value from outside is quoted with its control characters
 * escaped, so an event type or an error message cannot forge another line; never a secret or the body.
 */
export function logLine(entry: WebhookLogEntry): string {
  const parts = [`checkout-partner-sdk webhook ${entry.outcome}`, `status=${entry.status}`];
  if (entry.eventId !== undefined) parts.push(`eventId=${quote(entry.eventId)}`);
  if (entry.type !== undefined) parts.push(`type=${quote(entry.type)}`);
  parts.push(`ms=${Math.round(entry.ms)}`);
  if (entry.confirmed !== undefined) parts.push(`confirmed=${entry.confirmed}`);
  if (entry.late === true) parts.push('late');
  if (entry.error !== undefined) parts.push(`error=${describeLineError(entry.error)}`);
  return parts.join(' ');
}

/** Writes a warning at construction (a handler that can never confirm an event) where the partner will see it. */
export function warnOnce(logger: WebhookLogger | false | undefined, warning: WebhookWarning): void {
  if (logger === false) return;
  if (logger !== undefined && typeof logger === 'object') {
    // pino and console take any object; `warning` names it so it can be filtered
    ignoreFailure(() => logger.warn(warning));
    return;
  }
  // a function logger takes delivery entries only: the warning goes to stderr, once
  stderrLine(`checkout-partner-sdk webhook warning ${warning.warning}: ${warning.message}`);
}

/** A warning about the handler's configuration, given once when it is created. */
export interface WebhookWarning {
  /** What the warning is about, e.g. `never-confirms`. */
  warning: string;
  /** What is wrong and which option fixes it. */
  message: string;
}

/** `value` (anything thrown or rejected) as a {@link WebhookLogError}. */
export function logError(value: unknown, depth = 0): WebhookLogError {
  if (!(value instanceof Error)) {
    return { name: 'NonError', message: typeof value === 'string' ? value : `a thrown ${describeThrown(value)}` };
  }
  const plain: WebhookLogError = { name: text(value.name, 'Error'), message: text(value.message, '') };
  const { status, requestId, operation } = value as { status?: unknown; requestId?: unknown; operation?: unknown };
  if (typeof status === 'number') plain.status = status;
  if (typeof requestId === 'string') plain.requestId = requestId;
  if (typeof operation === 'string') plain.operation = operation;
  if (typeof value.stack === 'string') plain.stack = value.stack;
  if (value instanceof AggregateError && Array.isArray(value.errors) && depth < 2) {
    plain.errors = value.errors.slice(0, 10).map((inner: unknown) => logError(inner, depth + 1));
  }
  return plain;
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function describeThrown(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
