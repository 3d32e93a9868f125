import type { CheckoutClient } from '../../index.js';
import { signatureHeaderName } from '../../internal/arguments.js';
import { MAX_TIMER_MS, timerMs } from '../../internal/timer-ms.js';
import { describe } from '../../internal/path.js';
import { clientTelemetryOptions, type TelemetryOptions } from '../../telemetry/options.js';
import type { Order, Withdrawal } from '../../schemas.js';
import type { WebhookEvent } from '../event.js';
import type { WebhookLogger } from './logger.js';
import { MemoryEventStore } from '../../stores/memory-event-store.js';
import { secretList, type SignatureScheme, type WebhookSecret } from '../signature/signature.js';
import type { EventStore } from '../../stores/event-store.js';
import type { TransactionalEventStore } from './transactional.js';
import { quote } from '../../internal/quote.js';
import type { WebhookTracker } from './tracker-intake.js';

/** The part of `CheckoutClient` the handler uses to confirm events; a `CheckoutClient` fits. */
export type WebhookClient = Pick<CheckoutClient, 'getOrderByExternalId' | 'getWithdrawalByExternalId'>;

/** What `onEvent` gets for each new event. */
export interface WebhookContext {
  /** The verified event, with every field as the provider sent it. */
  event: WebhookEvent;
  /** The order as last read to confirm an `otc.trade.*` or `pix.deposit.*` event. */
  order?: Order;
  /** The withdrawal as last read to confirm a `pix.withdrawal.*` event. */
  withdrawal?: Withdrawal;
  /**
   * Whether the status read confirms the event: `otc.trade.settled` when the order's settlement is
   * `Settled` with the event's `tradeId`; `otc.trade.cancelled` when the order's settlement has the
   * event's `tradeId` and its status names a cancellation (begins with "cancel", any case: the spec
   * names no value; `Pending` is re-read until the attempts are spent); `pix.withdrawal.settled` when the withdrawal is
   * `Completed`. Always `false` for other types (`pix.deposit.*`, other `pix.withdrawal.*`), whose
   * record is still read and handed over: look at `order` / `withdrawal` yourself. Also `false`
   * when nothing was read (no resolver, no id, unknown type), on a 404, or when the reads never
   * confirmed it.
   */
  confirmed: boolean;
}

/**
 * What `onEvent` gets with a transactional store (`PostgresEventStore` with `transactional: true`):
 * the {@link WebhookContext} and the transaction the event is claimed in.
 */
export interface TransactionalWebhookContext<Transaction> extends WebhookContext {
  /**
   * The claim's own transaction: a `pg` `PoolClient` inside `BEGIN`, or a postgres.js transaction
   * `sql`. Every write that must happen exactly once goes through it: it commits together with the
   * event's "done" mark, or rolls back with it (when `onEvent` throws or the process dies), and a
   * redelivery runs `onEvent` again. What cannot go through it (an email, a call to another
   * service, a write to another database) stays at-least-once: make it idempotent. Do not commit,
   * roll back or release it yourself, and use it only until `onEvent` resolves.
   */
  transaction: Transaction;
}

/**
 * Handles one new event. Resolve once it is handled; throw to have it redelivered and run again.
 * With a transactional store, the context also holds `transaction` (see {@link TransactionalWebhookContext}).
 */
export type OnEvent<Transaction = undefined> = (
  context: [Transaction] extends [undefined] ? WebhookContext : TransactionalWebhookContext<Transaction>,
) => void | Promise<void>;

/** Finds the externalId of the order or withdrawal an event is about, e.g. from `event.tradeId`; nothing means "do not read". */
export type ExternalIdResolver = (event: WebhookEvent) => string | null | undefined | Promise<string | null | undefined>;

/** How status reads confirm an event. */
export interface ConfirmOptions {
  /**
   * How many reads in all before `onEvent` gets `confirmed: false` (fewer when the claim's lease
   * would run out first, see `leaseMs`).
   * @default 3
   */
  attempts?: number | undefined;
  /**
   * Milliseconds between two reads.
   * @default 500
   */
  delayMs?: number | undefined;
}

/**
 * Options of `createWebhookHandler`. `Transaction` is inferred from a transactional `store` (the
 * type of `onEvent`'s `transaction`); it stays `undefined` with any other store.
 */
export interface WebhookHandlerOptions<Transaction = undefined> extends TelemetryOptions {
  /** The endpoint's signing secret, or a list of them while rotating (any match is valid). */
  secret: WebhookSecret;
  /** Reads the order or withdrawal to confirm each event: a `CheckoutClient`. */
  client: WebhookClient;
  /**
   * Handles each new, verified event once. Optional when `tracker` is given (then the tracker's
   * `onChange` handles each status change, exactly once); with both, each event nudges the tracker
   * and is also handed to `onEvent`.
   */
  onEvent?: OnEvent<Transaction> | undefined;
  /**
   * A status tracker (`createStatusTracker` from `checkout-partner-sdk/tracker`): each verified,
   * new event asks it to read its order or withdrawal now (through the resolvers), and is answered
   * 200 as soon as that request is stored. A nudge that fails is answered 503 (claim released).
   */
  tracker?: WebhookTracker | undefined;
  /**
   * Where handled events are recorded, so redeliveries are not handled twice. Use a shared store
   * (`RedisEventStore`, `PostgresEventStore`) when more than one process receives webhooks. A
   * transactional store (with `transact`) runs the confirm reads and `onEvent` inside its transaction.
   * @default new MemoryEventStore()
   */
  store?: EventStore | TransactionalEventStore<Transaction> | undefined;
  /**
   * The order's externalId for an `otc.trade.*` or `pix.deposit.*` event (may be async). Without
   * it, or when it returns nothing, the order is not read and `confirmed` is `false`.
   */
  resolveOrderExternalId?: ExternalIdResolver | undefined;
  /**
   * The withdrawal's externalId for a `pix.withdrawal.*` event (may be async). Without it, or when
   * it returns nothing, the withdrawal is not read and `confirmed` is `false`.
   */
  resolveWithdrawalExternalId?: ExternalIdResolver | undefined;
  /**
   * The header that holds the signature (case-insensitive).
   * @default 'x-provider-signature'
   */
  signatureHeader?: string | undefined;
  /** Replaces the default signature check (hex HMAC-SHA256 of the raw body in `signatureHeader`). */
  scheme?: SignatureScheme | undefined;
  /**
   * The largest body accepted, in bytes; a larger one is answered 413 without being read further.
   * @default 1_048_576 (1 MiB)
   */
  maxBodyBytes?: number | undefined;
  /**
   * Milliseconds after which a delivery still being handled is answered 503; the work goes on and
   * completes or releases its claim. Keep it under the provider's ~10 s limit. A body still
   * arriving then is not read further (nothing is claimed yet; `node()` closes the connection), so
   * a sender that stalls mid-body holds neither the connection nor `drain()`.
   * @default 8_000
   */
  responseTimeoutMs?: number | undefined;
  /**
   * How long a claim holds, in milliseconds: if this process dies while handling an event, a
   * redelivery can claim it after this. At least `responseTimeoutMs`; make it longer than
   * `onEvent` ever takes. The resolvers and status reads that confirm the event end before it
   * passes, with a margin of 10% of `leaseMs` (at most 5 s): a read (or resolver) still running then is aborted and the
   * delivery fails (claim released, 500), and no re-read is started that could not end in time.
   * `onEvent` itself is never cut off. At most 2^31 − 1 (about 24.8 days), as for every duration here:
   * no timer waits longer.
   * @default 60_000
   */
  leaseMs?: number | undefined;
  /**
   * How status reads confirm an event.
   * @default { attempts: 3, delayMs: 500 }
   */
  confirm?: ConfirmOptions | undefined;
  /**
   * Receives one structured entry per delivery. Without one, each delivery that fails (`onEvent`
   * threw, a status read or the store failed, or it was still being handled at
   * `responseTimeoutMs`) writes one line to stderr, and every delivery does
   * with `CHECKOUT_LOG=debug`; `false` writes nothing, not even the construction warning.
   * @default one stderr line per failed delivery
   */
  logger?: WebhookLogger | false | undefined;
}

/** The options with every default applied, checked once. */
export interface ResolvedOptions {
  secrets: readonly string[];
  client: WebhookClient;
  onEvent: OnEvent;
  /** The tracker to nudge per event, if any. */
  tracker: WebhookTracker | undefined;
  /** `true` when only `tracker` handles events (no `onEvent`): no confirm reads in the handler. */
  trackerOnly: boolean;
  store: EventStore;
  resolveOrderExternalId: ExternalIdResolver | undefined;
  resolveWithdrawalExternalId: ExternalIdResolver | undefined;
  signatureHeader: string;
  scheme: SignatureScheme | undefined;
  maxBodyBytes: number;
  responseTimeoutMs: number;
  leaseMs: number;
  attempts: number;
  delayMs: number;
  logger: WebhookLogger | false | undefined;
  /** The providers: the options', else the client's, else the global ones (looked up per delivery). */
  telemetry: TelemetryOptions;
}

const KNOWN = new Set<string>([
  'secret',
  'client',
  'onEvent',
  'tracker',
  'store',
  'resolveOrderExternalId',
  'resolveWithdrawalExternalId',
  'signatureHeader',
  'scheme',
  'maxBodyBytes',
  'responseTimeoutMs',
  'leaseMs',
  'confirm',
  'logger',
  'tracerProvider',
  'meterProvider',
]);

/** Checks every option and applies the defaults; a wrong one is a `TypeError` naming it. */
export function resolveOptions<Transaction>(options: WebhookHandlerOptions<Transaction>): ResolvedOptions {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`createWebhookHandler options must be an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new TypeError(`createWebhookHandler: unknown option ${quote(key)}`);
  }
  const client = options.client as unknown;
  if (
    client === null ||
    typeof client !== 'object' ||
    typeof (client as WebhookClient).getOrderByExternalId !== 'function' ||
    typeof (client as WebhookClient).getWithdrawalByExternalId !== 'function'
  ) {
    throw new TypeError('client must be a CheckoutClient (an object with getOrderByExternalId and getWithdrawalByExternalId)');
  }
  const tracker = options.tracker as unknown;
  if (tracker !== undefined && (tracker === null || typeof tracker !== 'object' || typeof (tracker as WebhookTracker).nudge !== 'function')) {
    throw new TypeError('tracker must be a status tracker (an object with nudge), from createStatusTracker');
  }
  fn('onEvent', options.onEvent, tracker === undefined);
  fn('resolveOrderExternalId', options.resolveOrderExternalId);
  fn('resolveWithdrawalExternalId', options.resolveWithdrawalExternalId);
  fn('scheme', options.scheme);
  const store = options.store ?? new MemoryEventStore();
  if (
    store === null ||
    typeof store !== 'object' ||
    typeof store.claim !== 'function' ||
    typeof store.complete !== 'function' ||
    typeof store.release !== 'function'
  ) {
    throw new TypeError('store must be an EventStore (an object with claim, complete and release methods)');
  }
  const signatureHeader = signatureHeaderName(options.signatureHeader);
  const maxBodyBytes = options.maxBodyBytes ?? 1_048_576;
  if (typeof maxBodyBytes !== 'number' || !Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new TypeError(`maxBodyBytes must be a whole number of bytes of at least 1, got ${quote(maxBodyBytes)}`);
  }
  const responseTimeoutMs = timerMs('responseTimeoutMs', options.responseTimeoutMs, 8_000);
  const leaseMs = timerMs('leaseMs', options.leaseMs, 60_000);
  if (leaseMs < responseTimeoutMs) {
    throw new TypeError(
      `leaseMs (${leaseMs}) must be at least responseTimeoutMs (${responseTimeoutMs}): a claim must outlive the delivery that made it`,
    );
  }
  const confirm = options.confirm ?? {};
  if (confirm === null || typeof confirm !== 'object') {
    throw new TypeError(`confirm must be an object { attempts?, delayMs? }, got ${describe(confirm)}`);
  }
  const attempts = confirm.attempts ?? 3;
  if (typeof attempts !== 'number' || !Number.isSafeInteger(attempts) || attempts < 1 || attempts > 100) {
    throw new TypeError(`confirm.attempts must be a whole number from 1 to 100, got ${quote(attempts)}`);
  }
  const delayMs = confirm.delayMs ?? 500;
  if (typeof delayMs !== 'number' || !(delayMs >= 0) || !Number.isFinite(delayMs)) {
    throw new TypeError(`confirm.delayMs must be a number of milliseconds of at least 0, got ${quote(delayMs)}`);
  }
  if (delayMs > MAX_TIMER_MS) {
    throw new TypeError(`confirm.delayMs must be at most ${MAX_TIMER_MS} milliseconds (the longest a timer can wait), got ${delayMs}`);
  }
  const logger = options.logger as unknown;
  if (
    logger !== undefined &&
    logger !== false &&
    typeof logger !== 'function' &&
    (logger === null ||
      typeof logger !== 'object' ||
      !['info', 'warn', 'error'].every((level) => typeof (logger as Record<string, unknown>)[level] === 'function'))
  ) {
    throw new TypeError('logger must be a function or an object with info, warn and error methods (or false for no logging)');
  }
  return {
    secrets: secretList(options.secret),
    client: client as WebhookClient,
    // the handler passes `transaction` exactly when the store is transactional, as Transaction says
    onEvent: (options.onEvent ?? (() => undefined)) as OnEvent,
    tracker: tracker as WebhookTracker | undefined,
    trackerOnly: tracker !== undefined && options.onEvent === undefined,
    store,
    resolveOrderExternalId: options.resolveOrderExternalId,
    resolveWithdrawalExternalId: options.resolveWithdrawalExternalId,
    signatureHeader,
    scheme: options.scheme,
    maxBodyBytes,
    responseTimeoutMs,
    leaseMs,
    attempts,
    delayMs,
    logger: logger as WebhookLogger | false | undefined,
    telemetry: {
      tracerProvider: options.tracerProvider ?? clientTelemetryOptions(client).tracerProvider,
      meterProvider: options.meterProvider ?? clientTelemetryOptions(client).meterProvider,
    },
  };
}

function fn(name: string, value: unknown, required = false): void {
  if (value === undefined && !required) return;
  if (typeof value !== 'function') throw new TypeError(`${name} must be a function, got ${describe(value)}`);
}
