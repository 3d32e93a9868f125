/**
 * One request the fake received, as `fake.requests` lists it. Secrets are masked.
 */
export interface FakeRequestRecord {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** Path and query as received, e.g. `/api/v1/partner-api/orders/by-external-id/o-1`. */
  readonly path: string;
  /**
   * Request headers (lower-case names). `x-partner-secret`, cookies and the credentials of
   * `authorization` read `[redacted]` (`Bearer [redacted]`).
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The status the fake answered, or `0` when it dropped the connection (`failNext(n, 'network')`). */
  readonly status: number;
  /** When it arrived, epoch milliseconds. */
  readonly at: number;
}

/**
 * Counters of what the fake has served since it was made (or `reset()`).
 */
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
}

type MutableStats = { -readonly [K in keyof FakeCheckoutStats]: FakeCheckoutStats[K] };

/** What one answered request adds to the log. */
export interface AnsweredRequest {
  readonly record: FakeRequestRecord;
  readonly kind: 'token' | 'business';
  readonly injected: boolean;
}

/** The fake's bounded request log, its counters, and the `onRequest` callback. */
export class RequestLog {
  readonly #max: number;
  readonly #onRequest: ((record: FakeRequestRecord) => void) | undefined;
  #entries: FakeRequestRecord[] = [];
  #stats: MutableStats = zero();

  constructor(max: number, onRequest: ((record: FakeRequestRecord) => void) | undefined) {
    this.#max = max;
    this.#onRequest = onRequest;
  }

  add({ record, kind, injected }: AnsweredRequest): void {
    const s = this.#stats;
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
    return { ...this.#stats };
  }

  clear(): void {
    this.#entries = [];
    this.#stats = zero();
  }
}

function zero(): MutableStats {
  return { requests: 0, tokenExchanges: 0, tokensIssued: 0, businessCalls: 0, unauthorized: 0, notFound: 0, faultsInjected: 0 };
}
