import { OrderSchema, WithdrawalSchema, type Order, type ParseSchema, type Withdrawal } from './schemas.js';

// The one table of record kinds: everything that differs between kinds is read from here, and code
// that differs by kind dispatches through a `Record<StatusKind, …>`, so adding a kind (its line in
// `KindRecords`, its entry in `RECORD_KINDS`) makes the compiler name every other place it needs.
// Outside every feature, so every feature reads it without an import cycle.

/** Each kind of record a status read returns, by its name (the name is the `StatusKind`). */
export interface KindRecords {
  /** An order, read by GET /orders/by-external-id/{externalId}. */
  order: Order;
  /** A PIX withdrawal, read by GET /withdrawals/by-external-id/{externalId}. */
  withdrawal: Withdrawal;
}

/** A kind of record: what `getRecord`, `waitFor` and `watch` take, one per entry of {@link KindRecords}. */
export type StatusKind = keyof KindRecords;

/** The record a kind's status read returns: `RecordOf<'order'>` is `Order`. */
export type RecordOf<K extends StatusKind> = KindRecords[K];

/** The name of a kind's read on `CheckoutClient` and on a test double: `getOrderByExternalId`. */
export type ReadName<K extends StatusKind> = `get${Capitalize<K>}ByExternalId`;

/** The name of a kind's resolver option of `createWebhookHandler`: `resolveOrderExternalId`. */
export type ResolverName<K extends StatusKind> = `resolve${Capitalize<K>}ExternalId`;

/** A record read by its kind: `kind` says which record `data` is (narrow on it). */
export type KindRecord = {
  [K in StatusKind]: {
    /** The record's kind. */
    kind: K;
    /** The record's externalId, as it was read by. */
    externalId: string;
    /** The record as its read returned it, every field kept. */
    data: RecordOf<K>;
  };
}[StatusKind];

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
  /** The final statuses that are a success (exactly, as the spec spells them); every other final status is a failure. */
  readonly successStatuses: readonly string[];
  /** The per-kind read a status reader may have instead of `getRecord` (from the kind's name). */
  readonly read: ReadName<K>;
  /** The webhook handler's per-kind option that finds a record's externalId from a provider event (from the kind's name). */
  readonly resolver: ResolverName<K>;
  /** The kind with its article, for messages: `an order`. */
  readonly named: string;
  /**
   * Values a read reveals that provider events carry in place of the externalId, by the event
   * field that carries them: the tracker records them, so an event finds its record.
   */
  readonly keys: Readonly<Record<string, (record: RecordOf<K>) => string | undefined>>;
  /**
   * Whether the record's next status change is one a provider event announces (the tracker then
   * reads it at a safety pace, not the fast one), e.g. an order once its trade exists (`otc.trade.*`).
   */
  readonly announced: (record: RecordOf<K>) => boolean;
}

/** What a kind's entry says; its member names follow from its name. */
type KindDefinition<K extends StatusKind> = Omit<RecordKindEntry<K>, 'read' | 'resolver'>;

const DEFINITIONS: { readonly [K in StatusKind]: KindDefinition<K> } = {
  order: {
    path: '/orders/by-external-id/{externalId}',
    schema: OrderSchema,
    statusOf: (order) => (typeof order.settlement?.status === 'string' ? order.settlement.status : null),
    finalStatuses: ['Settled', 'Cancelled'],
    finalPrefixes: ['cancel'],
    successStatuses: ['Settled'],
    named: 'an order',
    keys: { tradeId: (order) => (typeof order.settlement?.tradeId === 'string' ? order.settlement.tradeId : undefined) },
    announced: (order) => typeof order.settlement?.tradeId === 'string' && !finalIn(DEFINITIONS.order, DEFINITIONS.order.statusOf(order)),
  },
  withdrawal: {
    path: '/withdrawals/by-external-id/{externalId}',
    schema: WithdrawalSchema,
    statusOf: (withdrawal) => withdrawal.status,
    finalStatuses: ['Completed', 'Cancelled', 'Failed', 'Rejected'],
    finalPrefixes: ['fail', 'cancel', 'reject'],
    successStatuses: ['Completed'],
    named: 'a withdrawal',
    keys: {},
    announced: () => true,
  },
};

/** Every kind, in the table's order. @internal */
export const STATUS_KINDS = Object.keys(DEFINITIONS) as readonly StatusKind[];

/** The record kinds. A new kind is one more entry of `DEFINITIONS` (and its line in `KindRecords`). @internal */
export const RECORD_KINDS = Object.fromEntries(
  STATUS_KINDS.map((kind) => [
    kind,
    { ...DEFINITIONS[kind], read: kindMember('get', kind, 'ByExternalId'), resolver: kindMember('resolve', kind, 'ExternalId') },
  ]),
) as unknown as { readonly [K in StatusKind]: RecordKindEntry<K> };

/**
 * A per-kind member's name, the kind capitalised between `prefix` and `suffix`: `kindMember('watch',
 * 'order')` is `watchOrder`. Every per-kind name partners know is made this way. @internal
 */
export function kindMember<P extends string, K extends StatusKind, S extends string = ''>(
  prefix: P,
  kind: K,
  suffix: S = '' as S,
): `${P}${Capitalize<K>}${S}` {
  return `${prefix}${kind.charAt(0).toUpperCase()}${kind.slice(1)}${suffix}` as `${P}${Capitalize<K>}${S}`;
}

/** Each kind's own member `prefix<Kind>suffix`, made by `member(kind)`, for an object literal to spread. @internal */
export function perKind<T>(prefix: string, member: (kind: StatusKind) => T, suffix = ''): Record<string, T> {
  return Object.fromEntries(STATUS_KINDS.map((kind) => [kindMember(prefix, kind, suffix), member(kind)]));
}

/** Puts each kind's own method `prefix<Kind>suffix` on a class's prototype, as a class declares a method. @internal */
export function installPerKind(prototype: object, prefix: string, method: (kind: StatusKind) => unknown, suffix = ''): void {
  for (const [name, value] of Object.entries(perKind(prefix, method, suffix))) {
    Object.defineProperty(prototype, name, { value, writable: true, configurable: true });
  }
}

/** Whether `value` names a kind of the table. @internal */
export function isStatusKind(value: unknown): value is StatusKind {
  return typeof value === 'string' && Object.hasOwn(RECORD_KINDS, value);
}

/** A kind's entry, typed for any record of any kind (for code that handles every kind alike). @internal */
export function kindEntry(kind: StatusKind): RecordKindEntry<StatusKind> {
  return RECORD_KINDS[kind] as unknown as RecordKindEntry<StatusKind>;
}

/** A record's status, as its kind's `statusOf` reads it (`null` when it has none yet). @internal */
export function statusOf(kind: StatusKind, record: RecordOf<StatusKind>): string | null {
  return kindEntry(kind).statusOf(record);
}

/**
 * Whether a status is final for its kind: one the service names for it (an order `Settled` or
 * `Cancelled`, for example), or one that begins with one of its final prefixes in any case (an
 * order cancelled). `null` (no status yet) is not final. The tracker's default `isFinal` is this check.
 *
 * @example
 * onChange: async (change) => {
 *   if (isFinalStatus(change.kind, change.status)) await close(change.externalId, isSuccessStatus(change.kind, change.status));
 * }
 */
export function isFinalStatus(kind: StatusKind, status: string | null): boolean {
  return finalIn(entryOf(kind), status);
}

/** {@link isFinalStatus} for an entry of the table (no check of the kind). */
function finalIn(
  { finalStatuses, finalPrefixes }: Pick<RecordKindEntry<StatusKind>, 'finalStatuses' | 'finalPrefixes'>,
  status: string | null,
): boolean {
  if (status === null) return false;
  const lower = status.toLowerCase();
  return finalStatuses.includes(status) || finalPrefixes.some((prefix) => lower.startsWith(prefix));
}

/**
 * Whether a status is a final success for its kind (an order `Settled`, for example). Every other
 * final status (see {@link isFinalStatus}) is a failure; `null` is not a success.
 *
 * @example
 * if (isFinalStatus('withdrawal', status) && !isSuccessStatus('withdrawal', status)) await refund(id);
 */
export function isSuccessStatus(kind: StatusKind, status: string | null): boolean {
  return status !== null && entryOf(kind).successStatuses.includes(status);
}

/** The entry of a kind named by partner code, or a `TypeError` naming the kinds there are. */
function entryOf(kind: StatusKind): RecordKindEntry<StatusKind> {
  if (!isStatusKind(kind)) {
    const got = typeof kind === 'string' ? JSON.stringify(kind) : typeof kind;
    throw new TypeError(`kind must be ${STATUS_KINDS.map((k) => `"${k}"`).join(' or ')}, got ${got}`);
  }
  return kindEntry(kind);
}

/** The options a {@link RecordReader}'s reads get from the tracker and the webhook handler (a `CheckoutClient` takes more). */
export interface ReadOptions {
  /** Aborts the read (the tracker's drain, the handler's lease deadline). */
  signal?: AbortSignal | undefined;
  /** Bounds the whole read, in milliseconds (the tracker's `readTimeoutMs`). */
  timeoutMs?: number | undefined;
}

/**
 * What the webhook handler and the status tracker read records through: a `CheckoutClient`, or a
 * test double with `getRecord`, or with the per-kind reads (`getOrderByExternalId`, ...) of the kinds
 * it is used for. Each read is looked up when a record of its kind is read, so a double needs no
 * read of a kind it never sees (and a kind added to the SDK asks nothing new of it).
 *
 * @example
 * const client: RecordReader = { getOrderByExternalId: async (externalId) => ({ externalId, settlement: { status: 'Settled' } }) };
 */
export type RecordReader = {
  /** Reads a record of any kind, as `CheckoutClient.getRecord`; used for a kind without its own read here. */
  getRecord?:
    | {
        /** Reads the record of `kind` by its externalId. */
        read(kind: StatusKind, externalId: string, options?: ReadOptions): Promise<RecordOf<StatusKind>>;
      }['read']
    | undefined;
} & {
  // each read checked like a method (its parameters bivariant), so a double may declare narrower options
  [K in StatusKind as ReadName<K>]?:
    | {
        /** Reads the record of this kind by its externalId. */
        read(externalId: string, options?: ReadOptions): Promise<RecordOf<K>>;
      }['read']
    | undefined;
};

/** Checks a `client` option: an object with `getRecord` or at least one per-kind read (a `TypeError` otherwise). @internal */
export function statusReader(client: unknown): RecordReader {
  const reads = ['getRecord', ...STATUS_KINDS.map((kind) => RECORD_KINDS[kind].read)];
  if (
    client === null ||
    typeof client !== 'object' ||
    !reads.some((name) => typeof (client as Record<string, unknown>)[name] === 'function')
  ) {
    throw new TypeError(`client must be a CheckoutClient (an object with ${reads.join(' or ')})`);
  }
  return client;
}

/**
 * Reads a record of `kind` through the reader: its per-kind read when it has one, else its
 * `getRecord`; a `TypeError` when it has neither (a test double used for a kind it does not read). @internal
 */
export function readRecord(
  reader: RecordReader,
  kind: StatusKind,
  externalId: string,
  options: ReadOptions,
): Promise<RecordOf<StatusKind>> {
  const name = RECORD_KINDS[kind].read;
  const own = (reader as Record<string, unknown>)[name];
  if (typeof own === 'function')
    return (own as (id: string, o: ReadOptions) => Promise<RecordOf<StatusKind>>).call(reader, externalId, options);
  if (typeof reader.getRecord === 'function') return reader.getRecord(kind, externalId, options);
  return Promise.reject(new TypeError(`client has neither ${name} nor getRecord, so it cannot read ${RECORD_KINDS[kind].named}`));
}
