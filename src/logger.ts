import type { StatusKind, StatusSource, WatchEndReason } from './tracker/kinds.js';
import type { WebhookOutcome } from './webhooks/engine/outcome.js';

// The SDK's one logging contract: the client, the webhook handler and the status tracker take the
// same `logger` option (a `Logger`, or `false` for none) and write entries of one union, `LogEntry`,
// told apart by `event` (`client.*`, `webhook.*`, `tracker.*`). Types only: each part resolves the
// option through src/internal/log.ts and keeps its own default (stderr).

/**
 * Where the SDK reports: a function (it gets every entry), or a console-like object (`console`,
 * pino) with `info`, `warn` and `error` methods and an optional `debug` (without it, debug entries
 * are skipped). Each entry says at which level it goes (see the `event` of each entry type). A
 * logger that throws, or returns a promise that rejects, is ignored. `Logger` alone takes every
 * entry of the SDK; one part's entries are ``Extract<LogEntry, { event: `client.${string}` }>``
 * (and `webhook.`, `tracker.` alike).
 *
 * @example
 * const log: Logger = (entry) => {
 *   if (entry.event === 'webhook.delivery') metrics.increment(`webhook.${entry.outcome}`);
 *   else if (entry.event === 'client.attempt') metrics.timing('checkout.attempt', entry.ms);
 * };
 * new CheckoutClient({ logger: log });
 * createWebhookHandler({ ..., logger: log });
 * createStatusTracker({ ..., logger: pino() });
 */
export type Logger<Entry = LogEntry> =
  | ((entry: Entry) => void)
  | {
      /** Gets the detail (successful attempts, tracker reads); optional: without it those are skipped. */
      debug?(entry: Entry): unknown;
      /** Gets what went as meant (token exchanges, deliveries handled, status changes). */
      info(entry: Entry): unknown;
      /** Gets what was refused or retried (retries, failed attempts, rejected deliveries, give-ups). */
      warn(entry: Entry): unknown;
      /** Gets what failed (a delivery's `onEvent` or store, a tracker's `onChange` or store). */
      error(entry: Entry): unknown;
    };

/** Every entry the SDK logs; `event` tells them apart. */
export type LogEntry = ClientLogEntry | WebhookLogEntry | WebhookWarning | TrackerLogEntry;

/**
 * What failed, as a plain object: an `Error` itself would serialise to `{}` in a JSON logger (its
 * fields are not enumerable). Errors of the SDK never carry secrets; an error thrown by the
 * partner's `onEvent` or `onChange` is shown as it is.
 */
export interface LogError {
  /** The error's class name, e.g. `ServerError`, `PostgresStoreError`, `TypeError`. */
  name: string;
  /** The error's message (for a thrown value that is not an `Error`: that value as text, or its type). */
  message: string;
  /** The HTTP status, for an `ApiError`. */
  status?: number;
  /** The service's `x-request-id`, for an `ApiError` that carried one. */
  requestId?: string;
  /** The store operation that failed (`claim`, `complete`…), for a `RedisStoreError` or a `PostgresStoreError`. */
  operation?: string;
  /** The stack trace, where the runtime gives one. */
  stack?: string;
  /** The errors an `AggregateError` holds (e.g. `onEvent`'s and then the release's). */
  errors?: LogError[];
}

/**
 * One entry of the client's log: one per HTTP attempt, per retry and per token exchange. It never
 * holds a secret, a token, a header or a body. Levels: a successful `client.attempt` is `debug`, a
 * `client.exchange` `info`, a `client.retry` or a failed attempt `warn`.
 *
 * @inline
 */
export interface ClientLogEntry {
  /** `client.attempt`: one HTTP attempt ended; `client.retry`: a new attempt starts after a failed one; `client.exchange`: a token exchange ended. */
  event: 'client.attempt' | 'client.retry' | 'client.exchange';
  /** The HTTP method, upper case. */
  method: string;
  /** The path below the API base, e.g. `/orders/by-external-id/order-42`. */
  path: string;
  /** The response status; `undefined` when no response arrived (for `client.retry`: the status of the attempt retried). */
  status: number | undefined;
  /** Milliseconds the attempt (or the whole exchange) took; for `client.retry`, since the failed attempt ended. */
  ms: number;
  /** The attempt's number, from 1 (for `client.retry`, the attempt about to start; for `client.exchange`, how many it took). */
  attempt: number;
  /** The service's `x-request-id`, when the response carried one. */
  requestId: string | undefined;
  /** For `client.retry`: how long the client waited before this attempt, in milliseconds. */
  retryInMs?: number | undefined;
  /**
   * What failed the attempt (or exchange) besides its status: `name` is the error it becomes
   * (`TimeoutError`, `ConnectionError`, `ResponseTooLargeError`, an abort reason's `AbortError`…),
   * `message` says why without quoting a header or a body (an abort reason of the caller's is named, not quoted).
   */
  error?: LogError | undefined;
}

/**
 * One entry per webhook delivery (plus a `late` one when a timed-out delivery's work ends). It
 * never holds a secret, a signature or the body. Levels: `handled`, `duplicate` and `in-flight` are `info`; refused or
 * timed-out deliveries (`bad-signature`, `invalid`, `too-large`, `aborted`, `draining`, `timeout`,
 * ...) `warn`; `failed`, `misconfigured`, `store-unavailable` and `secret-unavailable` `error`.
 *
 * @inline
 */
export interface WebhookLogEntry {
  /** Always `webhook.delivery`. */
  event: 'webhook.delivery';
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
   * With a `tracker`: whether it was asked to read the event's record. `false` when no resolver
   * (nor the tracker's lookup by a read's key, e.g. an `otc.trade.*` event's `tradeId`) found the
   * record, or the type names none: the event is answered 200 and left to the tracker's polling.
   */
  nudged?: boolean;
  /**
   * `true` on the second entry of a delivery that timed out: the work went on after the 503 and
   * ended with this `outcome` (`status` is what it would have answered).
   */
  late?: true;
  /** What failed, for `failed`, `store-unavailable`, `misconfigured` and the like. */
  error?: LogError;
}

/**
 * A configuration that cannot work as meant (e.g. `never-confirms`), given once at `createWebhookHandler`, at level `warn`.
 *
 * @inline
 */
export interface WebhookWarning {
  /** Always `webhook.warning`. */
  event: 'webhook.warning';
  /** What the warning is about, e.g. `never-confirms`. */
  warning: string;
  /** What is wrong and which option fixes it. */
  message: string;
}

/**
 * One entry of the status tracker's log. It never holds a secret. Levels: `tracker.read` is
 * `debug` (`warn` when it failed); `tracker.change` and `tracker.ended` `info`; `tracker.give-up` and
 * `tracker.lease-lost` `warn`; `tracker.change-failed` and `tracker.store-failed` `error`.
 *
 * @inline
 */
export interface TrackerLogEntry {
  /**
   * What happened: `tracker.read` (a record was read; `outcome` says what it showed),
   * `tracker.change` (`onChange` resolved and the status was recorded), `tracker.change-failed`
   * (`onChange` threw, or was given up: a `HandlingAbandonedError`), `tracker.ended` (the watch ended at a final status), `tracker.give-up` (the
   * watch ran out after `maxAgeMs`, or the record was never found within `notFoundForMs`: see
   * `reason`), `tracker.lease-lost` (this process lost a record's lease; its change was not recorded
   * here), `tracker.store-failed` (a store operation failed).
   */
  event:
    | 'tracker.read'
    | 'tracker.change'
    | 'tracker.change-failed'
    | 'tracker.ended'
    | 'tracker.give-up'
    | 'tracker.lease-lost'
    | 'tracker.store-failed';
  /** The record's kind (absent for a store failure that concerns no one record). */
  kind?: StatusKind;
  /** The record's externalId (absent for a store failure that concerns no one record). */
  externalId?: string;
  /** For `tracker.ended` and `tracker.give-up`: why the watch ended. */
  reason?: WatchEndReason;
  /** For `tracker.read`: `changed`, `same`, `not-found` (404: kept watching until `notFoundForMs`) or `failed`. */
  outcome?: 'changed' | 'same' | 'not-found' | 'failed';
  /** The status read (or recorded). */
  status?: string | null | undefined;
  /** The status handled before, for `tracker.change` and `tracker.read`. */
  previousStatus?: string | null | undefined;
  /** For `tracker.read` and `tracker.change`: what asked for the read. */
  source?: StatusSource;
  /** Milliseconds the read (or `onChange`) took. */
  ms?: number;
  /** What failed. */
  error?: LogError;
}
