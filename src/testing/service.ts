import { typeName } from '../internal/type-name.js';
import { installPerKind, isStatusKind, kindEntry, kindMember, STATUS_KINDS, type RecordOf, type StatusKind } from '../kinds.js';
import { checkKind, fakeKind } from './fake-kinds.js';
import { faultRequest, FaultQueue, pause, type FailNextOptions, type FaultStatus } from './faults.js';
import { serveOnNodeHttp, type FakeServer, type ListenOptions } from './node-server.js';
import { checkPartner, type FakePartner, type ResolvedPartner } from './partners.js';
import { RecordTable, type ChangeOptions } from './records.js';
import { RequestLog, type FakeCheckoutStats, type FakeRequestRecord } from './request-log.js';
import { maskHeaders, problem } from './responses.js';
import { handleRoute, type RouteContext } from './routes.js';
import {
  IdempotencyKeys,
  PartnerRoutes,
  servePartnerRoute,
  type FakeKindRecords,
  type FakeRecords,
  type FakeRecordsByKind,
  type FakeRoute,
  type FakeRouteRequest,
  type FakeRouteResponse,
} from './partner-routes.js';
import { TokenAuthority } from './tokens.js';
import { quote } from '../internal/quote.js';

/** Options of {@link createFakeCheckout}. */
export interface FakeCheckoutOptions {
  /** The partner accounts; `setPartner` adds more. @default [] */
  partners?: readonly FakePartner[] | undefined;
  /** The lifetime of the access tokens it issues (`expiresIn`), in seconds. @default 3600 */
  tokenTtlSeconds?: number | undefined;
  /** How many requests `requests` keeps; the oldest are dropped. @default 1000 */
  maxLoggedRequests?: number | undefined;
  /** Called with each answered request (secrets masked), e.g. for a live log; what it throws is ignored. */
  onRequest?: ((record: FakeRequestRecord) => void) | undefined;
  /** The partner's own endpoints, served behind the fake's Bearer check; see {@link FakeRoute}. `route()` adds more. @default [] */
  routes?: readonly FakeRoute[] | undefined;
}

/** Returned by the internal handler when the connection must be dropped without a response. */
export const DROP_CONNECTION: unique symbol = Symbol('drop connection');

/** The fake without its msw adapter, for the CLI's sandbox; partners use {@link FakeCheckout}. */
// each kind's record methods are put on the prototype from the kinds table (the static block)
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface FakeCheckoutCore extends FakeKindRecords {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class FakeCheckoutCore implements FakeRecords, FakeRecordsByKind {
  /** The service as a bound fetch function, e.g. the client's `fetch`; a `'network'` fault rejects with a `TypeError`, as fetch does. */
  readonly fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

  readonly #initialPartners: readonly ResolvedPartner[];
  readonly #partners = new Map<string, ResolvedPartner>();
  readonly #records = new Map<StatusKind, RecordTable<RecordOf<StatusKind>>>(
    STATUS_KINDS.map((kind) => [kind, new RecordTable(kind, kindEntry(kind).schema)]),
  );
  readonly #tokenTtlSeconds: number;
  readonly #log: RequestLog;
  readonly #faults = new FaultQueue();
  readonly #routes: PartnerRoutes;
  readonly #idempotency = new IdempotencyKeys();
  #tokens = new TokenAuthority();
  #delayMs = 0;
  #nextRequestId = 1;

  constructor(options: FakeCheckoutOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`createFakeCheckout options must be an object, got ${typeName(options)}`);
    }
    const partners = options.partners ?? [];
    if (!Array.isArray(partners)) throw new TypeError(`partners must be an array, got ${typeName(partners)}`);
    this.#initialPartners = partners.map((partner, i) => checkPartner(partner, `partners[${i}]`));
    const ids = new Set<string>();
    for (const partner of this.#initialPartners) {
      if (ids.has(partner.partnerId)) throw new TypeError(`partners: partnerId ${quote(partner.partnerId)} appears twice`);
      ids.add(partner.partnerId);
    }
    this.#tokenTtlSeconds = options.tokenTtlSeconds ?? 3600;
    if (!Number.isInteger(this.#tokenTtlSeconds) || this.#tokenTtlSeconds < 1) {
      throw new TypeError(`tokenTtlSeconds must be a whole number of at least 1, got ${quote(options.tokenTtlSeconds)}`);
    }
    const maxLogged = options.maxLoggedRequests ?? 1000;
    if (!Number.isInteger(maxLogged) || maxLogged < 0) {
      throw new TypeError(`maxLoggedRequests must be a whole number of at least 0, got ${quote(options.maxLoggedRequests)}`);
    }
    if (options.onRequest !== undefined && typeof options.onRequest !== 'function') {
      throw new TypeError(`onRequest must be a function, got ${typeName(options.onRequest)}`);
    }
    this.#log = new RequestLog(maxLogged, options.onRequest);
    this.#routes = new PartnerRoutes(options.routes);
    this.#restorePartners();
    this.fetch = async (input, init) => {
      const outcome = await this.respond(new Request(input, init));
      if (outcome === DROP_CONNECTION) {
        // worded as undici words it, so clients recognise a network error and retry it
        throw new TypeError('fetch failed', {
          cause: new Error('the fake checkout service dropped the connection (injected fault)'),
        });
      }
      return outcome;
    };
  }

  /** Adds a partner account, or replaces the one with the same `partnerId`. */
  setPartner(partner: FakePartner): void {
    const resolved = checkPartner(partner);
    this.#partners.set(resolved.partnerId, resolved);
  }

  /** Changes a partner account; its tokens stop working at once when it is disabled or loses API access. */
  updatePartner(partnerId: string, changes: Partial<Omit<FakePartner, 'partnerId'>>): void {
    const current = typeof partnerId === 'string' ? this.#partners.get(partnerId) : undefined;
    if (current === undefined) throw new TypeError(`updatePartner: no partner with partnerId ${quote(partnerId)}`);
    if (changes === null || typeof changes !== 'object') throw new TypeError('updatePartner: changes must be an object');
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    this.#partners.set(partnerId, checkPartner({ ...current, ...defined, partnerId }));
  }

  /**
   * Adds an endpoint of the partner's own; see {@link FakeRoute}. The fake checks the Bearer token, parses the JSON body
   * and replays the first response for a repeated `Idempotency-Key` (422 if it comes with another request). `reset()` removes it.
   */
  route<Path extends string>(
    method: FakeRoute['method'],
    path: Path,
    handler: (request: FakeRouteRequest<Path>) => FakeRouteResponse | Promise<FakeRouteResponse>,
  ): void {
    this.#routes.add({ method, path, handler }, 'route()');
  }

  /**
   * Adds a record of `kind`, or replaces the one with the same `externalId` (dropping its pending changes).
   * It is validated with the client's schema of the kind; every other field is served as given.
   */
  setRecord<K extends StatusKind>(kind: K, record: RecordOf<K>): RecordOf<K> {
    return this.#set(kind, record, 'setRecord()');
  }

  /**
   * Merges `patch` into a record of `kind`, now or after `options.afterReads` reads. A field set to `undefined` is
   * removed; an order's `settlement` is merged field by field.
   */
  updateRecord<K extends StatusKind>(kind: K, externalId: string, patch: Partial<RecordOf<K>>, options?: ChangeOptions): void {
    this.#update(kind, externalId, patch, options, 'updateRecord()');
  }

  /** Gives a record of `kind` the status `status`, where its kind keeps it (an order's `settlement.status`). */
  setStatus(kind: StatusKind, externalId: string, status: string, options?: ChangeOptions): void {
    if (typeof status !== 'string' || status === '')
      throw new TypeError(`setStatus: status must be a non-empty string, got ${quote(status)}`);
    this.#update(kind, externalId, fakeKind(checkKind(kind, 'setStatus()')).withStatus(status), options, 'setStatus()');
  }

  /** The record of `kind` reaches its successful end, the status its provider event announces (an order `Settled`). */
  settle(kind: StatusKind, externalId: string, options?: ChangeOptions): void {
    const { withStatus, settled } = fakeKind(checkKind(kind, 'settle()'));
    this.#update(kind, externalId, withStatus(settled), options, 'settle()');
  }

  /** A copy of the record of `kind` as last set (pending changes not applied, no read counted), or `undefined`. */
  getRecord<K extends StatusKind>(kind: K, externalId: string): RecordOf<K> | undefined {
    return this.#table(kind, 'getRecord()').peek(externalId) as RecordOf<K> | undefined;
  }

  /** Removes a record of `kind`; its GET then answers 404. */
  deleteRecord(kind: StatusKind, externalId: string): boolean {
    return this.#table(kind, 'deleteRecord()').delete(externalId);
  }

  /** The order settles: `settlement.status` becomes `Settled`, and `settlement.tradeId` becomes `tradeId` when given. */
  settleOrder(externalId: string, options: ChangeOptions & { tradeId?: string | undefined } = {}): void {
    const tradeId = options?.tradeId;
    if (tradeId !== undefined && (typeof tradeId !== 'string' || tradeId === '')) {
      throw new TypeError('settleOrder: tradeId must be a non-empty string');
    }
    const patch = { settlement: { status: 'Settled', ...(tradeId === undefined ? {} : { tradeId }) } };
    this.#update('order', externalId, patch, options, 'settleOrder()');
  }

  /** The order's trade is cancelled (`otc.trade.cancelled`): `settlement.status` becomes `Cancelled`. */
  cancelOrder(externalId: string, options?: ChangeOptions): void {
    this.#update('order', externalId, { settlement: { status: 'Cancelled' } }, options, 'cancelOrder()');
  }

  /** The PIX withdrawal settles (`pix.withdrawal.settled`): `status` becomes `Completed`. */
  completeWithdrawal(externalId: string, options?: ChangeOptions): void {
    this.#update('withdrawal', externalId, { status: 'Completed' }, options, 'completeWithdrawal()');
  }

  static {
    const set = (kind: StatusKind) =>
      function (this: FakeCheckoutCore, record: RecordOf<StatusKind>) {
        return this.#set(kind, record, `${kindMember('set', kind)}()`);
      };
    const update = (kind: StatusKind) =>
      function (this: FakeCheckoutCore, externalId: string, patch: object, options?: ChangeOptions) {
        this.#update(kind, externalId, patch, options, `${kindMember('update', kind)}()`);
      };
    const get = (kind: StatusKind) =>
      function (this: FakeCheckoutCore, externalId: string) {
        return this.getRecord(kind, externalId);
      };
    const remove = (kind: StatusKind) =>
      function (this: FakeCheckoutCore, externalId: string) {
        return this.deleteRecord(kind, externalId);
      };
    installPerKind(this.prototype, 'set', set);
    installPerKind(this.prototype, 'update', update);
    installPerKind(this.prototype, 'get', get);
    installPerKind(this.prototype, 'delete', remove);
  }

  /**
   * The next `count` requests that `options.only` picks fail with `status`, or with `'network'` get no response.
   * Later calls queue behind earlier ones.
   *
   * @example
   * fake.failNext(3, 429, { retryAfter: 1 });
   * fake.failNext(1, 'network', { only: 'token' }); // the next token exchange gets no response
   */
  failNext(count: number, status: FaultStatus, options?: FailNextOptions): void {
    this.#faults.add(count, status, options);
  }

  /** Injected failures not yet used. */
  get pendingFaults(): number {
    return this.#faults.pending;
  }

  /** Holds every response back `ms` milliseconds (0: off), e.g. to test a timeout; an aborted request is answered at once. */
  setDelay(ms: number): void {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      throw new TypeError(`setDelay: ms must be a number of at least 0, got ${quote(ms)}`);
    }
    this.#delayMs = ms;
  }

  /** Every access token issued so far stops working (401), as after a key rotation. */
  revokeTokens(): void {
    this.#tokens.revokeAll();
  }

  /** What the fake received, oldest first (at most `maxLoggedRequests`). Secrets are masked. */
  get requests(): readonly FakeRequestRecord[] {
    return this.#log.entries;
  }

  /** Counters since creation or `reset()`. */
  get stats(): FakeCheckoutStats {
    return this.#log.stats;
  }

  /**
   * Back to the state right after creation: partners and routes as first given; no records, idempotency keys,
   * logged requests, faults or delay; zeroed stats; every token revoked.
   */
  reset(): void {
    this.#restorePartners();
    this.#routes.reset();
    this.#idempotency.clear();
    for (const table of this.#records.values()) table.clear();
    this.#faults.clear();
    this.#log.clear();
    this.#delayMs = 0;
    this.#tokens = new TokenAuthority();
  }

  /** Serves the fake over HTTP with node:http (Node, Bun, Deno); the server's `url` is the client's `baseUrl`. */
  listen(options: ListenOptions = {}): Promise<FakeServer> {
    return serveOnNodeHttp((request) => this.respond(request), options);
  }

  /** The whole service as every adapter calls it: the `Response`, or a marker symbol for a `'network'` fault. Prefer `fetch`. */
  async respond(request: Request): Promise<Response | typeof DROP_CONNECTION> {
    const url = new URL(request.url);
    const requestId = `fake-${this.#nextRequestId++}`;
    const kind = /\/auth\/token\/?$/.test(url.pathname) ? 'token' : 'business';
    const arrived = {
      method: request.method.toUpperCase(),
      path: url.pathname + url.search,
      headers: maskHeaders(request.headers),
      at: Date.now(),
    };

    let outcome: Response | typeof DROP_CONNECTION;
    const target = faultRequest(arrived.method, url.pathname);
    const fault = this.#faults.take(target);
    if (fault !== undefined) {
      await pause(fault.delayMs + this.#delayMs, request.signal);
      outcome =
        fault.status === 'network'
          ? DROP_CONNECTION
          : new Response(JSON.stringify(fault.body), {
              status: fault.status,
              headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, ...fault.headers },
            });
    } else {
      await pause(this.#delayMs, request.signal);
      try {
        outcome = await handleRoute(request, url, this.#routeContext(requestId));
      } catch {
        outcome = problem(500, 'internal', 'The fake checkout service failed to handle the request', requestId);
      }
    }
    const status = outcome === DROP_CONNECTION ? 0 : outcome.status;
    const read = target.method === 'GET' && isStatusKind(target.kind) ? { kind: target.kind, externalId: target.externalId } : undefined;
    this.#log.add({ record: { ...arrived, status }, kind, injected: fault !== undefined, read });
    return outcome;
  }

  #routeContext(requestId: string): RouteContext {
    return {
      requestId,
      tokenTtlSeconds: this.#tokenTtlSeconds,
      tokens: this.#tokens,
      partner: (id) => this.#partners.get(id),
      record: (kind, id) => this.#records.get(kind)?.read(id),
      partnerRoute: (request, url, path, partnerId) => {
        const match = this.#routes.match(request.method.toUpperCase(), path);
        if (match === undefined) return undefined;
        if ('badEncoding' in match)
          return Promise.resolve(problem(400, 'bad_request', 'The path is not valid percent-encoding', requestId));
        if ('allow' in match) {
          const allow = match.allow.join(', ');
          return Promise.resolve(
            problem(405, 'method_not_allowed', `${request.method} is not allowed here; use ${allow}`, requestId, { allow }),
          );
        }
        return servePartnerRoute(request, url, path, match, { partnerId, requestId, records: this, idempotency: this.#idempotency });
      },
    };
  }

  #table(kind: unknown, caller: string): RecordTable<RecordOf<StatusKind>> {
    return this.#records.get(checkKind(kind, caller))!;
  }

  #set<K extends StatusKind>(kind: K, record: RecordOf<K>, caller: string): RecordOf<K> {
    return this.#table(kind, caller).set(record, caller) as RecordOf<K>;
  }

  #update(kind: StatusKind, externalId: unknown, patch: unknown, options: ChangeOptions | undefined, caller: string): void {
    const table = this.#table(kind, caller);
    const name = caller.slice(0, -2);
    if (patch === null || typeof patch !== 'object') throw new TypeError(`${name}: patch must be an object`);
    const { merge } = fakeKind(kind);
    table.change(externalId, (record) => merge(record, patch), options, caller);
  }

  #restorePartners(): void {
    this.#partners.clear();
    for (const partner of this.#initialPartners) this.#partners.set(partner.partnerId, partner);
  }
}
