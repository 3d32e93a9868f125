import { OrderSchema, WithdrawalSchema, type Order, type ParseSchema, type Withdrawal } from './schemas.js';

// The one table of record kinds: code dispatching through a `Record<StatusKind, …>` fails to compile where a new kind is missing.

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
  readonly schema: ParseSchema<RecordOf<K>>;
  /** The record's status (`null` when it has none yet): what the tracker compares and hands over. */
  readonly statusOf: (record: RecordOf<K>) => string | null;
  /** The final statuses the spec names; one beginning with a `finalPrefixes` entry (any case) is final too. */
  readonly finalStatuses: readonly string[];
  /** Prefixes (lower case) of the final statuses the spec does not spell out. */
  readonly finalPrefixes: readonly string[];
  /** The final statuses that are a success (exactly, as the spec spells them); every other final status is a failure. */
  readonly successStatuses: readonly string[];
  readonly read: ReadName<K>;
  readonly resolver: ResolverName<K>;
  /** The kind with its article, for messages: `an order`. */
  readonly named: string;
  /** Values a read reveals that events carry instead of the externalId, by event field: the tracker keeps them for lookups. */
  readonly keys: Readonly<Record<string, (record: RecordOf<K>) => string | undefined>>;
  /** Whether the record's next change is one a provider event announces: the tracker then reads it at the safety pace. */
  readonly announced: (record: RecordOf<K>) => boolean;
}

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

export const STATUS_KINDS = Object.keys(DEFINITIONS) as readonly StatusKind[];

export const RECORD_KINDS = Object.fromEntries(
  STATUS_KINDS.map((kind) => [
    kind,
    { ...DEFINITIONS[kind], read: kindMember('get', kind, 'ByExternalId'), resolver: kindMember('resolve', kind, 'ExternalId') },
  ]),
) as unknown as { readonly [K in StatusKind]: RecordKindEntry<K> };

/** A per-kind member's name, the kind capitalised between `prefix` and `suffix`: every per-kind name is made so. @internal */
export function kindMember<P extends string, K extends StatusKind, S extends string = ''>(
  prefix: P,
  kind: K,
  suffix: S = '' as S,
): `${P}${Capitalize<K>}${S}` {
  return `${prefix}${kind.charAt(0).toUpperCase()}${kind.slice(1)}${suffix}` as `${P}${Capitalize<K>}${S}`;
}

export function perKind<T>(prefix: string, member: (kind: StatusKind) => T, suffix = ''): Record<string, T> {
  return Object.fromEntries(STATUS_KINDS.map((kind) => [kindMember(prefix, kind, suffix), member(kind)]));
}

/** Puts each kind's own method `prefix<Kind>suffix` on a class's prototype, as a class declares a method. @internal */
export function installPerKind(prototype: object, prefix: string, method: (kind: StatusKind) => unknown, suffix = ''): void {
  for (const [name, value] of Object.entries(perKind(prefix, method, suffix))) {
    Object.defineProperty(prototype, name, { value, writable: true, configurable: true });
  }
}

export function isStatusKind(value: unknown): value is StatusKind {
  return typeof value === 'string' && Object.hasOwn(RECORD_KINDS, value);
}

/** A kind's entry, typed for any record of any kind (for code that handles every kind alike). @internal */
export function kindEntry(kind: StatusKind): RecordKindEntry<StatusKind> {
  return RECORD_KINDS[kind] as unknown as RecordKindEntry<StatusKind>;
}

export function statusOf(kind: StatusKind, record: RecordOf<StatusKind>): string | null {
  return kindEntry(kind).statusOf(record);
}

/** Whether a status is final for its kind: one the service names, or one starting (any case) with a final prefix; `null` is not. */
export function isFinalStatus(kind: StatusKind, status: string | null): boolean {
  return finalIn(entryOf(kind), status);
}

function finalIn(
  { finalStatuses, finalPrefixes }: Pick<RecordKindEntry<StatusKind>, 'finalStatuses' | 'finalPrefixes'>,
  status: string | null,
): boolean {
  if (status === null) return false;
  const lower = status.toLowerCase();
  return finalStatuses.includes(status) || finalPrefixes.some((prefix) => lower.startsWith(prefix));
}

/** Whether a status is a final success for its kind; every other final status is a failure, and `null` no success. */
export function isSuccessStatus(kind: StatusKind, status: string | null): boolean {
  return status !== null && entryOf(kind).successStatuses.includes(status);
}

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
 * What the handler and the tracker read records through: a `CheckoutClient`, or a double with `getRecord` or the per-kind reads it needs.
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
