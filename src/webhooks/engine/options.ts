import type { KindRecord, KindRecords, RecordReader, ResolverName, StatusKind } from '../../kinds.js';
import type { EventStore, TransactionalEventStore } from '../../stores/event-store.js';
import type { WebhookEvent } from '../event.js';
import type { SignatureScheme } from '../signature/signature.js';
import type { WebhookSecretSource } from './secret-source.js';
import type { Logger, WebhookLogEntry, WebhookWarning } from '../../logger.js';
import type { TelemetryOptions } from '../../telemetry/options.js';
import type { StatusTracker } from '../../tracker/types.js';

/** Each kind's record under its kind's name, as {@link WebhookContext} has it: the record read to confirm the event. */
export type WebhookContextRecords = { [K in keyof KindRecords]?: KindRecords[K] };

/** What `onEvent` gets for each new event. */
export interface WebhookContext extends WebhookContextRecords {
  /** The verified event, with every field as the provider sent it. */
  event: WebhookEvent;
  /**
   * The record read to confirm the event, whatever its kind: narrow on `record.kind` for `record.data`.
   * Absent when nothing was read. Not enumerable (a spread or `JSON.stringify` leaves it out).
   */
  record?: KindRecord;
  /**
   * Whether the status read confirms the event: the record shows the status its type announces (and the
   * event's key, where the type has one). `false` for a type that announces no status (its record is still
   * read: look at it yourself), when nothing was read, on a 404, or when the reads never confirmed it.
   */
  confirmed: boolean;
  /**
   * Aborts with a `HandlingAbandonedError` when the handler lets this event go (past `maxHandlingMs`, a
   * drain that gave up, a lost claim): its claim lapses and another delivery runs it. Not enumerable.
   */
  signal: AbortSignal;
}

/** What `onEvent` gets with a transactional store: the {@link WebhookContext} and the transaction the event is claimed in. */
export interface TransactionalWebhookContext<Transaction> extends WebhookContext {
  /**
   * The claim's transaction (a `pg` `PoolClient` in `BEGIN`, or a postgres.js `sql`): writes through it commit
   * with the event's "done" mark or roll back with it. Anything else stays at-least-once: make it idempotent.
   * Do not commit, roll back or release it, and use it only until `onEvent` resolves.
   */
  transaction: Transaction;
}

/**
 * Handles one new event: resolve once handled; throw to have it redelivered and run again.
 * @inline
 */
export type OnEvent<Transaction = undefined> = (
  context: [Transaction] extends [undefined] ? WebhookContext : TransactionalWebhookContext<Transaction>,
) => void | Promise<void>;

/**
 * Finds the externalId of the record an event is about, e.g. from `event.tradeId`; nothing means "do not read".
 * @inline
 */
export type ExternalIdResolver = (event: WebhookEvent) => string | null | undefined | Promise<string | null | undefined>;

/**
 * How status reads confirm an event.
 * @inline
 */
export interface ConfirmOptions {
  /** How many reads in all before `confirmed: false` (fewer when the claim's lease would run out first). @default 3 */
  attempts?: number | undefined;
  /** Milliseconds between two reads. @default 500 */
  delayMs?: number | undefined;
}

/**
 * The resolvers by kind: each finds the externalId of the record of its kind an event is about.
 * @inline
 */
export type ExternalIdResolvers = Partial<Record<StatusKind, ExternalIdResolver | undefined>>;

/** Each kind's own resolver option, named by the kinds table: the same as that kind's entry of `resolveExternalId`. */
export type KindResolverOptions = {
  /** The externalId of the record of the kind its name says that an event is about, as that kind's `resolveExternalId` entry. */
  [K in StatusKind as ResolverName<K>]?: ExternalIdResolver | undefined;
};

/** Options of `createWebhookHandler`; `Transaction` is inferred from a transactional `store`. */
export interface WebhookHandlerOptions<Transaction = undefined> extends TelemetryOptions, KindResolverOptions {
  /**
   * The endpoint's signing secret, or a list while rotating (any match is valid), read once; or a function
   * returning either, called per delivery (a rotated secret needs no restart; one that fails answers 503).
   */
  secret: WebhookSecretSource;
  /** Reads the record an event is about, to confirm it: a `CheckoutClient`. */
  client: RecordReader;
  /** Handles each new, verified event once. Optional with `tracker`; with both, each event nudges the tracker and goes to `onEvent`. */
  onEvent?: OnEvent<Transaction> | undefined;
  /** A status tracker: each new event nudges its record, answered 200 once the nudge is stored (503 when it fails). */
  tracker?: WebhookTracker | undefined;
  /**
   * Where handled events are recorded, so redeliveries are not handled twice; a shared store for more than one
   * process. A transactional store (with `transact`) runs the confirm reads and `onEvent` in its transaction.
   * @default new MemoryEventStore()
   */
  store?: EventStore | TransactionalEventStore<Transaction> | undefined;
  /**
   * Finds the externalId of the record an event is about, per kind (each may be async); without one, or when it
   * returns nothing, no record is read and `confirmed` is `false`. A kind also given its own option is a `TypeError`.
   * @default {}
   * @example
   * resolveExternalId: { order: (event) => orders.externalIdForTrade(event['tradeId']) }
   */
  resolveExternalId?: ExternalIdResolvers | undefined;
  /** The header that holds the signature (case-insensitive). @default 'x-provider-signature' */
  signatureHeader?: string | undefined;
  /** Replaces the default signature check (hex HMAC-SHA256 of the raw body in `signatureHeader`). */
  scheme?: SignatureScheme | undefined;
  /** The largest body accepted, in bytes; a larger one is answered 413 without being read further. @default 1_048_576 (1 MiB) */
  maxBodyBytes?: number | undefined;
  /**
   * Milliseconds after which a delivery still in hand is answered 503 (the work goes on); keep it under the
   * provider's ~10 s. A body still arriving then is not read further.
   * @default 8_000
   */
  responseTimeoutMs?: number | undefined;
  /**
   * How long a claim holds, in milliseconds, at least `responseTimeoutMs`: renewed every third of it while in hand
   * (stores with `renew`), so a killed worker's claims free within a lease; with a transactional store it bounds
   * the transaction. Confirm reads still running 10% of it (at most 5 s) before its end fail the delivery.
   * @default 15_000; 60_000 with a transactional store or one without `renew`
   */
  leaseMs?: number | undefined;
  /**
   * The longest `onEvent` keeps its claim, in milliseconds; past it the event is given up (`context.signal` aborts,
   * logged as `failed`). With a transactional store, keep `leaseMs` (its transaction's bound) at least this.
   * @default 60_000; with a transactional store, its `leaseMs`
   */
  maxHandlingMs?: number | undefined;
  /**
   * This worker's stable name (a pod name; never two live processes with one): restarted under it, a worker
   * takes back its own claims at once. A transactional store needs none.
   * @default undefined (a dead worker's claims free when their lease passes)
   */
  owner?: string | undefined;
  /** How status reads confirm an event. @default { attempts: 3, delayMs: 500 } */
  confirm?: ConfirmOptions | undefined;
  /**
   * Receives one entry per delivery; `false` writes nothing, not even the construction warning.
   * @default one stderr line per failed delivery (every delivery with `CHECKOUT_LOG=debug`)
   */
  logger?: Logger<WebhookLogEntry | WebhookWarning> | false | undefined;
}

/**
 * The part of a status tracker the handler uses: `nudge`, and `recordFor` when it has it. A `StatusTracker` fits.
 * @inline
 */
export type WebhookTracker = Pick<StatusTracker, 'nudge'> & Partial<Pick<StatusTracker, 'recordFor'>>;
