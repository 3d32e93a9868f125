import { ignoreFailure } from '../../internal/ignore-failure.js';
import type { WebhookOutcome } from './outcome.js';

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
  /** What failed, for `failed`, `store-unavailable`, `misconfigured` and the like (errors of the SDK never carry secrets). */
  error?: unknown;
}

/**
 * Where the handler reports deliveries: a function, or a logger object with `info`, `warn` and
 * `error` methods that take an object first (pino, `console`). On an object, `handled`,
 * `duplicate` and `in-flight` go to `info`; refused or timed-out deliveries (`bad-signature`,
 * `invalid`, `too-large`, `draining`, `timeout`) to `warn`; `failed`, `misconfigured` and
 * `store-unavailable` to `error`. A logger that throws is ignored.
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
      /** Gets the entries of rejected deliveries (bad signature, size, payload). */
      warn(entry: WebhookLogEntry): unknown;
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
  draining: 'warn',
  timeout: 'warn',
  failed: 'error',
  misconfigured: 'error',
  'store-unavailable': 'error',
};

/** Writes `entry`; a logger that throws never breaks a delivery. */
export function writeLog(logger: WebhookLogger | undefined, entry: WebhookLogEntry): void {
  if (logger === undefined) return;
  // a broken logger (one that throws, or an async one that rejects) must not turn a handled event
  // into a failed delivery, nor end the process with an unhandled rejection
  ignoreFailure(() => (typeof logger === 'function' ? logger(entry) : logger[LEVEL[entry.outcome]](entry)));
}
