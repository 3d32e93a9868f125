// The options of createWebhookHandler, types only (one TSDoc block per option, with @default where
// there is one); resolve-options.ts checks them and applies the defaults.
import type { KindRecord, KindRecords, RecordReader, ResolverName, StatusKind } from '../../kinds.js';
import type { EventStore, TransactionalEventStore } from '../../stores/event-store.js';
import type { WebhookEvent } from '../event.js';
import type { SignatureScheme } from '../signature/signature.js';
import type { WebhookSecretSource } from './secret-source.js';
import type { Logger, WebhookLogEntry, WebhookWarning } from '../../logger.js';
import type { TelemetryOptions } from '../../telemetry/options.js';
import type { StatusTracker } from '../../tracker/types.js';

/**
 * Each kind's record under its kind's name (`order`, ...), as {@link WebhookContext} has it: the
 * record last read to confirm an event about it (also in `record`).
 */
export type WebhookContextRecords = { [K in keyof KindRecords]?: KindRecords[K] };

/** What `onEvent` gets for each new event. */
export interface WebhookContext extends WebhookContextRecords {
  /** The verified event, with every field as the provider sent it. */
  event: WebhookEvent;
  /**
   * The record read to confirm the event, whatever its kind: narrow on `record.kind` for
   * `record.data`. Absent when nothing was read (see `confirmed`). Not enumerable (a spread or
   * `JSON.stringify` of the context leaves it out), so a test's deep equality with a 1.1 context holds.
   *
   * @example
   * if (context.confirmed && context.record?.kind === 'withdrawal') await markPaid(context.record.data.externalId);
   */
  record?: KindRecord;
  /**
   * Whether the status read confirms the event: the record shows the status the event's type
   * announces, and the event's key where its type has one (`otc.trade.settled`: the order's
   * settlement `Settled` with the event's `tradeId`; `otc.trade.cancelled`: a status that begins
   * with "cancel", any case, as the spec names no value; `Pending` is re-read until the attempts are
   * spent). Always `false` for a type that announces no status (`pix.deposit.*`), whose record is
   * still read and handed over: look at it yourself. Also `false` when nothing was read (no
   * resolver, no id, unknown type), on a 404, or when the reads never confirmed it.
   */
  confirmed: boolean;
  /**
   * Aborts when the handler stops holding this event (past `maxHandlingMs`, once `drain()` gave up,
   * or its claim lost): its claim lapses and another delivery runs it, so stop then. Its reason is
   * a `HandlingAbandonedError`. Not enumerable, as `record`.
   *
   * @example
   * onEvent: async ({ event, signal }) => {
   *   await fetch('https://fulfilment.example/settled', { method: 'POST', body: event.eventId, signal });
   * }
   */
  signal: AbortSignal;
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
 *
 * @inline
 */
export type OnEvent<Transaction = undefined> = (
  context: [Transaction] extends [undefined] ? WebhookContext : TransactionalWebhookContext<Transaction>,
) => void | Promise<void>;

/**
 * Finds the externalId of the record an event is about, e.g. from `event.tradeId`; nothing means "do not read".
 *
 * @inline
 */
export type ExternalIdResolver = (event: WebhookEvent) => string | null | undefined | Promise<string | null | undefined>;

/**
 * How status reads confirm an event.
 *
 * @inline
 */
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
 * The resolvers by kind: each finds the externalId of the record of its kind an event is about.
 *
 * @inline
 */
export type ExternalIdResolvers = Partial<Record<StatusKind, ExternalIdResolver | undefined>>;

/**
 * Each kind's own resolver option (`resolveOrderExternalId`, ...), named by the kinds table: the
 * same as that kind's entry of `resolveExternalId`.
 */
export type KindResolverOptions = {
  /**
   * The externalId of the record of the kind its name says that an event of that kind is about
   * (may be async), as that kind's entry of `resolveExternalId`: `resolveOrderExternalId` for
   * `otc.trade.*` and `pix.deposit.*` events. Without it, or when it returns nothing, the record is
   * not read and `confirmed` is `false`.
   */
  [K in StatusKind as ResolverName<K>]?: ExternalIdResolver | undefined;
};

/**
 * Options of `createWebhookHandler`. `Transaction` is inferred from a transactional `store` (the
 * type of `onEvent`'s `transaction`); it stays `undefined` with any other store.
 */
export interface WebhookHandlerOptions<Transaction = undefined> extends TelemetryOptions, KindResolverOptions {
  /**
   * The endpoint's signing secret, or a list of them while rotating (any match is valid). A string
   * or list is read once, when the handler is built (changing the array later changes nothing); a
   * function returning either (sync or async) is called per delivery, so a rotated secret is taken
   * without a restart. A function that throws or returns no usable secret answers the delivery 503
   * (`secret-unavailable`, logged), so the provider redelivers it.
   */
  secret: WebhookSecretSource;
  /** Reads the record an event is about, to confirm it: a `CheckoutClient`. */
  client: RecordReader;
  /**
   * Handles each new, verified event once. Optional when `tracker` is given (then the tracker's
   * `onChange` handles each status change, exactly once); with both, each event nudges the tracker
   * and is also handed to `onEvent`.
   */
  onEvent?: OnEvent<Transaction> | undefined;
  /**
   * A status tracker (`createStatusTracker` from `checkout-partner-sdk/tracker`): each verified,
   * new event asks it to read its record now (through the resolvers), and is answered
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
   * Finds the externalId of the record an event is about, by the record's kind (each may be
   * async): `order` for `otc.trade.*` and `pix.deposit.*` events, for example. Without one for an
   * event's kind, or when it returns nothing, no record is read and `confirmed` is `false`. A kind
   * given here and in its own option (`resolveOrderExternalId`) is a `TypeError`.
   * @default {}
   *
   * @example
   * resolveExternalId: { order: (event) => orders.externalIdForTrade(event['tradeId']), withdrawal: (event) => event['externalId'] }
   */
  resolveExternalId?: ExternalIdResolvers | undefined;
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
   * How long a claim holds, in milliseconds. While the delivery is in hand the handler renews it
   * every third of `leaseMs` (stores with `renew`: all built-in ones), so a long `onEvent` keeps its
   * claim, and a killed worker's claims free within one lease: meanwhile a redelivery gets 409 with
   * `Retry-After` (the seconds left on the lease). A store without `renew` is not renewed: make the
   * lease longer than `onEvent` ever takes. With a transactional store the claim is the transaction
   * (a killed worker's ends with its connection), and `leaseMs` bounds it. At least `responseTimeoutMs`.
   * The resolvers and status reads that confirm the event end within one lease from the claim, less
   * a margin of 10% of `leaseMs` (at most 5 s): a read (or resolver) still running then is aborted
   * and the delivery fails (claim released, 500). `onEvent` itself is never cut off. At most
   * 2^31 − 1 (about 24.8 days), as for every duration here: no timer waits longer.
   * @default 15_000 with a store that renews claims (at least `responseTimeoutMs`); 60_000 with a
   *   transactional store or one without `renew`
   */
  leaseMs?: number | undefined;
  /**
   * The longest `onEvent` keeps its claim, in milliseconds. Past it the handler gives the event up:
   * the claim is no longer renewed (another delivery runs the event within `leaseMs`),
   * `context.signal` aborts, and the delivery is logged as `failed` with a `HandlingAbandonedError`
   * and counted (`checkout.handling.abandoned`). With a transactional store, `leaseMs` bounds its
   * transaction, claim reads included: keep it at least this.
   * @default 60_000: past any call a callback should make with a usual 30 s timeout; with a
   *   transactional store, its `leaseMs` (60_000 by default)
   */
  maxHandlingMs?: number | undefined;
  /**
   * This worker's stable name (one per process, e.g. its pod or host name; never two live processes
   * with one), as the tracker's `owner`. Claims are made under it, so a worker restarted under the
   * same owner takes back its own claims at once: a redelivery of an event it held when it died is
   * handled without waiting for the lease. Without it a restarted worker waits like any other. A
   * transactional store needs none: a killed worker's transaction ends with its connection.
   * @default undefined (no owner: a dead worker's claims free when their lease passes)
   */
  owner?: string | undefined;
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
  logger?: Logger<WebhookLogEntry | WebhookWarning> | false | undefined;
}

/**
 * The part of a status tracker the webhook handler uses: `nudge`, and `recordFor` when it has it (an
 * `otc.trade.*` event then needs no resolver). A `StatusTracker` fits.
 *
 * @inline
 */
export type WebhookTracker = Pick<StatusTracker, 'nudge'> & Partial<Pick<StatusTracker, 'recordFor'>>;
