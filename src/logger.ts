import type { StatusKind, StatusSource, WatchEndReason } from './tracker/kinds.js';
import type { WebhookOutcome } from './webhooks/engine/outcome.js';

/**
 * Where the SDK reports: a function, or a console-like object (`console`, pino) with a method per level. A logger that
 * throws or rejects is ignored. One part's entries alone: ``Extract<LogEntry, { event: `client.${string}` }>``.
 */
export type Logger<Entry = LogEntry> =
  | ((entry: Entry) => void)
  | {
      /** Gets the detail: successful `client.attempt`s and `tracker.read`s; without `debug` they are skipped. */
      debug?(entry: Entry): unknown;
      /** Gets what went as meant: `client.exchange`, deliveries handled, duplicate or in flight, `tracker.change`, `tracker.ended`. */
      info(entry: Entry): unknown;
      /** Gets what was refused or retried: retries, failed attempts and reads, refused or timed-out deliveries, give-ups, lost leases. */
      warn(entry: Entry): unknown;
      /** Gets what failed: deliveries `failed`, `misconfigured` or `*-unavailable`, `tracker.change-failed`, `tracker.store-failed`. */
      error(entry: Entry): unknown;
    };

/** Every entry the SDK logs; `event` tells them apart. */
export type LogEntry = ClientLogEntry | WebhookLogEntry | WebhookWarning | TrackerLogEntry;

/** What failed, as a plain object (an `Error` serialises to `{}`); the SDK's errors carry no secret, a partner's are shown as they are. */
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

/** One entry per HTTP attempt, retry and token exchange, never with a secret, a token, a header or a body. @inline */
export interface ClientLogEntry {
  /** `client.attempt`: an HTTP attempt ended; `client.retry`: another starts after a failed one; `client.exchange`: a token exchange. */
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
  /** What failed the attempt besides its status: `name` the error it becomes, `message` why, quoting no header, body or abort reason. */
  error?: LogError | undefined;
}

/** One entry per webhook delivery (and a `late` one when a timed-out one's work ends), never with a secret, signature or body. @inline */
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
  /** With a `tracker`: whether it was asked to read the event's record (`false`: none found, left to its polling). */
  nudged?: boolean;
  /** `true` on a timed-out delivery's second entry: its work ended with this `outcome` (`status` as it would have answered). */
  late?: true;
  /** What failed, for `failed`, `store-unavailable`, `misconfigured` and the like. */
  error?: LogError;
}

/** A configuration that cannot work as meant, given once at `createWebhookHandler`, at level `warn`. @inline */
export interface WebhookWarning {
  /** Always `webhook.warning`. */
  event: 'webhook.warning';
  /** What the warning is about, e.g. `never-confirms`. */
  warning: string;
  /** What is wrong and which option fixes it. */
  message: string;
}

/** One entry of the status tracker's log, never with a secret. @inline */
export interface TrackerLogEntry {
  /**
   * `read` (see `outcome`), `change` (`onChange` resolved, status recorded), `change-failed` (`onChange` threw or was given up), `ended`
   * (a final status), `give-up` (see `reason`), `lease-lost` (the change is not recorded by this process), `store-failed`.
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
