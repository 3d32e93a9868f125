import { STATUS_KINDS, type StatusKind } from '../kinds.js';

/** One request the fake received, as `fake.requests` lists it. */
export interface FakeRequestRecord {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** Path and query as received, e.g. `/api/v1/partner-api/orders/by-external-id/o-1`. */
  readonly path: string;
  /** Request headers (lower-case names); secrets, cookies and `authorization`'s credentials read `[redacted]`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The status the fake answered, or `0` when it dropped the connection (`failNext(n, 'network')`). */
  readonly status: number;
  /** When it arrived, epoch milliseconds. */
  readonly at: number;
}

/** Counters of what the fake has served since it was made or `reset()`. */
export interface FakeCheckoutStats {
  /** Every request received. */
  readonly requests: number;
  /** Requests to POST /auth/token, whatever their outcome. */
  readonly tokenExchanges: number;
  /** Tokens issued (token exchanges answered 200). */
  readonly tokensIssued: number;
  /** Requests other than the token exchange. */
  readonly businessCalls: number;
  /** Responses with status 401. */
  readonly unauthorized: number;
  /** Responses with status 404. */
  readonly notFound: number;
  /** Requests answered by a fault from `failNext`. */
  readonly faultsInjected: number;
  /** The status reads (business calls too) by record kind and by record, whatever their answer. */
  readonly statusReads: FakeStatusReads;
}

/** Each record kind's status reads, as `fake.stats.statusReads` counts them. */
export type FakeStatusReads = Readonly<Record<StatusKind, FakeKindReads>>;

/** The status reads of one record kind. */
export interface FakeKindReads {
  /** Every status read of the kind. */
  readonly total: number;
  /** Reads by the record's externalId (decoded); a record never read has no entry. */
  readonly byExternalId: Readonly<Record<string, number>>;
}

type MutableStats = { -readonly [K in keyof Omit<FakeCheckoutStats, 'statusReads'>]: FakeCheckoutStats[K] };
type MutableReads = Record<StatusKind, { total: number; byExternalId: Record<string, number> }>;

export interface AnsweredRequest {
  readonly record: FakeRequestRecord;
  readonly kind: 'token' | 'business';
  readonly injected: boolean;
  /** `externalId` is undefined when its encoding is broken. */
  readonly read?: { kind: StatusKind; externalId: string | undefined } | undefined;
}

export class RequestLog {
  readonly #max: number;
  readonly #onRequest: ((record: FakeRequestRecord) => void) | undefined;
  #entries: FakeRequestRecord[] = [];
  #stats: MutableStats = zero();
  #reads: MutableReads = noReads();

  constructor(max: number, onRequest: ((record: FakeRequestRecord) => void) | undefined) {
    this.#max = max;
    this.#onRequest = onRequest;
  }

  add({ record, kind, injected, read }: AnsweredRequest): void {
    const s = this.#stats;
    if (read !== undefined) {
      const reads = this.#reads[read.kind];
      reads.total += 1;
      if (read.externalId !== undefined) reads.byExternalId[read.externalId] = (reads.byExternalId[read.externalId] ?? 0) + 1;
    }
    s.requests += 1;
    if (kind === 'token') s.tokenExchanges += 1;
    else s.businessCalls += 1;
    if (injected) s.faultsInjected += 1;
    if (record.status === 401) s.unauthorized += 1;
    if (record.status === 404) s.notFound += 1;
    if (kind === 'token' && record.status === 200 && !injected) s.tokensIssued += 1;
    if (this.#max > 0) {
      this.#entries.push(record);
      if (this.#entries.length > this.#max) this.#entries.splice(0, this.#entries.length - this.#max);
    }
    try {
      this.#onRequest?.(record);
    } catch {
      // a logging callback must not break the service
    }
  }

  get entries(): readonly FakeRequestRecord[] {
    return [...this.#entries];
  }

  get stats(): FakeCheckoutStats {
    const statusReads = Object.fromEntries(
      STATUS_KINDS.map((kind) => {
        const { total, byExternalId } = this.#reads[kind];
        return [kind, { total, byExternalId: Object.assign(Object.create(null) as Record<string, number>, byExternalId) }];
      }),
    ) as FakeStatusReads;
    return { ...this.#stats, statusReads };
  }

  clear(): void {
    this.#entries = [];
    this.#stats = zero();
    this.#reads = noReads();
  }
}

// null prototype: an externalId such as `__proto__` or `toString` is a key like any other
function noReads(): MutableReads {
  return Object.fromEntries(
    STATUS_KINDS.map((kind) => [kind, { total: 0, byExternalId: Object.create(null) as Record<string, number> }]),
  ) as MutableReads;
}

function zero(): MutableStats {
  return { requests: 0, tokenExchanges: 0, tokensIssued: 0, businessCalls: 0, unauthorized: 0, notFound: 0, faultsInjected: 0 };
}
