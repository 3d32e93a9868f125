import { OrderSchema, WithdrawalSchema, type Order, type ParseSchema, type Withdrawal } from './schemas.js';

// The one table of record kinds: everything that differs between an order and a withdrawal is read
// from here, and code that differs by kind dispatches through a `Record<StatusKind, …>`, so adding
// a kind (its line in `KindRecords`, its entry in `RECORD_KINDS`) makes the compiler name every
// other place it needs. Outside every feature, so the client, the stores, the tracker, the webhook
// handler, the telemetry and the CLI all read it without an import cycle.

/** Each kind of record a status read returns, by its name (the name is the `StatusKind`). */
export interface KindRecords {
  /** An order, read by GET /orders/by-external-id/{externalId}. */
  order: Order;
  /** A PIX withdrawal, read by GET /withdrawals/by-external-id/{externalId}. */
  withdrawal: Withdrawal;
}

/** What a status tracker watches: an order (`settlement.status`) or a withdrawal (`status`). */
export type StatusKind = keyof KindRecords;

/** The record a kind's status read returns. @internal */
export type RecordOf<K extends StatusKind> = KindRecords[K];

/** Everything the SDK knows of one kind of record. @internal */
export interface RecordKindEntry<K extends StatusKind> {
  /** The status read's path, `{externalId}` standing for the record's id (also the telemetry route). */
  readonly path: `/${string}/{externalId}`;
  /** The schema the read's body is parsed with. */
  readonly schema: ParseSchema<RecordOf<K>>;
  /** The record's status (`null` when it has none yet): what the tracker compares and hands over. */
  readonly statusOf: (record: RecordOf<K>) => string | null;
  /**
   * The final statuses the spec names, and every status that begins with one of `finalPrefixes`
   * (any case): the spec names a few end states and leaves the others (a cancellation) unspelled.
   */
  readonly finalStatuses: readonly string[];
  /** Prefixes (lower case) of the final statuses the spec does not spell out. */
  readonly finalPrefixes: readonly string[];
  /** The `CheckoutClient` method that reads it by externalId. */
  readonly read: 'getOrderByExternalId' | 'getWithdrawalByExternalId';
  /** The webhook handler's option that finds a record's externalId from a provider event. */
  readonly resolver: 'resolveOrderExternalId' | 'resolveWithdrawalExternalId';
  /** The CLI command that reads one (`checkout-partner order <externalId>`): the kind's name. */
  readonly command: K;
  /** The kind with its article, for messages: `an order`. */
  readonly named: string;
  /**
   * Values a read reveals that provider events carry in place of the externalId, by the event
   * field that carries them: the tracker records them, so an event finds its record.
   */
  readonly keys: Readonly<Record<string, (record: RecordOf<K>) => string | undefined>>;
  /**
   * Whether the record's next status change is one a provider event announces (the tracker then
   * reads it at a safety pace, not the fast one): an order whose trade exists (`otc.trade.*`), a
   * withdrawal (`pix.withdrawal.*`). The first milestone and BRZ orders have no event.
   */
  readonly announced: (record: RecordOf<K>) => boolean;
}

/** The record kinds. A new kind is one more entry (and its line in `KindRecords`). @internal */
export const RECORD_KINDS: { readonly [K in StatusKind]: RecordKindEntry<K> } = {
  order: {
    path: '/orders/by-external-id/{externalId}',
    schema: OrderSchema,
    statusOf: (order) => (typeof order.settlement?.status === 'string' ? order.settlement.status : null),
    finalStatuses: ['Settled', 'Cancelled'],
    finalPrefixes: ['cancel'],
    read: 'getOrderByExternalId',
    resolver: 'resolveOrderExternalId',
    command: 'order',
    named: 'an order',
    keys: { tradeId: (order) => (typeof order.settlement?.tradeId === 'string' ? order.settlement.tradeId : undefined) },
    announced: (order) => typeof order.settlement?.tradeId === 'string' && !isFinalStatus('order', RECORD_KINDS.order.statusOf(order)),
  },
  withdrawal: {
    path: '/withdrawals/by-external-id/{externalId}',
    schema: WithdrawalSchema,
    statusOf: (withdrawal) => withdrawal.status,
    finalStatuses: ['Completed', 'Cancelled', 'Failed', 'Rejected'],
    finalPrefixes: ['fail', 'cancel', 'reject'],
    read: 'getWithdrawalByExternalId',
    resolver: 'resolveWithdrawalExternalId',
    command: 'withdrawal',
    named: 'a withdrawal',
    keys: {},
    announced: () => true,
  },
};

/** Every kind, in the table's order. @internal */
export const STATUS_KINDS = Object.keys(RECORD_KINDS) as readonly StatusKind[];

/** Whether `value` names a kind of the table. @internal */
export function isStatusKind(value: unknown): value is StatusKind {
  return typeof value === 'string' && Object.hasOwn(RECORD_KINDS, value);
}

/** A kind's entry, typed for any record of any kind (for code that handles every kind alike). @internal */
export function kindEntry(kind: StatusKind): RecordKindEntry<StatusKind> {
  return RECORD_KINDS[kind] as unknown as RecordKindEntry<StatusKind>;
}

/** A record's status, as its kind reads it: an order's `settlement.status` (`null` without one), a withdrawal's `status`. @internal */
export function statusOf(kind: StatusKind, record: RecordOf<StatusKind>): string | null {
  return kindEntry(kind).statusOf(record);
}

/**
 * Whether a status is final by the table: one the spec names (exactly), or one that begins with a
 * final prefix, any case (an order `Settled` or cancelled; a withdrawal `Completed`, failed,
 * cancelled or rejected). @internal
 */
export function isFinalStatus(kind: StatusKind, status: string | null): boolean {
  if (status === null) return false;
  const { finalStatuses, finalPrefixes } = RECORD_KINDS[kind];
  const lower = status.toLowerCase();
  return finalStatuses.includes(status) || finalPrefixes.some((prefix) => lower.startsWith(prefix));
}

/** The reads of a status reader, one per kind (what `CheckoutClient` has). @internal */
export type KindReader = Readonly<
  Record<
    RecordKindEntry<StatusKind>['read'],
    (externalId: string, options?: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined }) => Promise<RecordOf<StatusKind>>
  >
>;

/** Reads a record of `kind` through the reader's method for it. @internal */
export function readRecord(
  reader: KindReader,
  kind: StatusKind,
  externalId: string,
  options: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined },
): Promise<RecordOf<StatusKind>> {
  return reader[RECORD_KINDS[kind].read](externalId, options);
}
