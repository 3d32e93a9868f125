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
  /**
   * The partner accounts the fake knows. More can be added with `setPartner`.
   * @default []
   */
  partners?: readonly FakePartner[] | undefined;
  /**
   * The lifetime of the access tokens it issues (`expiresIn`), in seconds.
   * @default 3600
   */
  tokenTtlSeconds?: number | undefined;
  /**
   * How many requests `requests` keeps (the oldest are dropped), so a long-running sandbox stays bounded.
   * @default 1000
   */
  maxLoggedRequests?: number | undefined;
  /**
   * Called with each request once it has been answered (secrets masked), e.g. to print a live log.
   * What it throws is ignored.
   */
  onRequest?: ((record: FakeRequestRecord) => void) | undefined;
  /**
   * The partner's own endpoints (checkout creation, payment…), served behind the fake's Bearer
   * checks with `Idempotency-Key` replay; see {@link FakeRoute}. More can be added with `route()`.
   * @default []
   */
  routes?: readonly FakeRoute[] | undefined;
}

/** Returned by the internal handler when the connection must be dropped without a response. */
export const DROP_CONNECTION: unique symbol = Symbol('drop connection');

/**
 * The fake checkout service without the msw adapter (so code that never builds msw handlers, such
 * as the CLI's sandbox, does not load msw). Partners use {@link FakeCheckout} through
 * `createFakeCheckout`.
 */
// each kind's own record methods are put on the prototype from the kinds table (the static block)
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface FakeCheckoutCore extends FakeKindRecords {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class FakeCheckoutCore implements FakeRecords, FakeRecordsByKind {
  /**
   * The service as a Web fetch function: give it a `Request` (or fetch's arguments), get its
   * `Response`. Bound, so it can be passed around, e.g. as the client's `fetch`. An injected
   * `'network'` fault rejects with a `TypeError`, as fetch does when a connection drops.
   *
   * @example
   * const client = new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId, partnerSecret, fetch: fake.fetch });
   */
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
        // Worded as undici words it, so clients recognise a network error (and retry it).
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

  /**
   * Changes a partner account: disable it, take its API access away, rotate its secret. Tokens it
   * already holds stop working at once when it is disabled or loses API access.
   *
   * @example
   * fake.updatePartner('p-1', { apiEnabled: false }); // the next exchange answers 401
   */
  updatePartner(partnerId: string, changes: Partial<Omit<FakePartner, 'partnerId'>>): void {
    const current = typeof partnerId === 'string' ? this.#partners.get(partnerId) : undefined;
    if (current === undefined) throw new TypeError(`updatePartner: no partner with partnerId ${quote(partnerId)}`);
    if (changes === null || typeof changes !== 'object') throw new TypeError('updatePartner: changes must be an object');
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    this.#partners.set(partnerId, checkPartner({ ...current, ...defined, partnerId }));
  }

  /**
   * Adds an endpoint of the partner's own (one the spec does not show, so the SDK does not type it)
   * to the fake: `path` is below the API base as `client.request` takes it, `:name` segments are
   * parameters. The fake checks the Bearer token first (401 as for its own endpoints), parses the
   * JSON body, and replays the first response for a repeated `Idempotency-Key` (422 when the key
   * comes back with another request). Faults (`failNext`), the delay and the request log apply.
   * `reset()` removes the routes added this way (those given to `createFakeCheckout` stay).
   * A bad definition throws a `TypeError` naming what is wrong.
   *
   * @example
   * fake.route('POST', '/orders/:orderId/payment', ({ params, fake }) => {
   *   fake.settleOrder(params.orderId);
   *   return { body: { tradeId: fake.getOrder(params.orderId)?.settlement?.tradeId ?? null } };
   * });
   */
  route<Path extends string>(
    method: FakeRoute['method'],
    path: Path,
    handler: (request: FakeRouteRequest<Path>) => FakeRouteResponse | Promise<FakeRouteResponse>,
  ): void {
    this.#routes.add({ method, path, handler }, 'route()');
  }

  /**
   * Adds a record of `kind`, or replaces the one with the same `externalId` (dropping its pending
   * changes). It is validated with the kind's schema (the client's); every other field is served as given.
   *
   * @example
   * fake.setRecord('withdrawal', { externalId: 'w-1', status: 'Processing' });
   */
  setRecord<K extends StatusKind>(kind: K, record: RecordOf<K>): RecordOf<K> {
    return this.#set(kind, record, 'setRecord()');
  }

  /**
   * Merges `patch` into a record of `kind`, now or after `options.afterReads` reads: its fields
   * replace the record's (an order's `settlement` is merged field by field), and a field set to
   * `undefined` is removed.
   *
   * @example
   * fake.updateRecord('order', 'o-1', { settlement: { status: 'Processing' } }, { afterReads: 1 });
   */
  updateRecord<K extends StatusKind>(kind: K, externalId: string, patch: Partial<RecordOf<K>>, options?: ChangeOptions): void {
    this.#update(kind, externalId, patch, options, 'updateRecord()');
  }

  /**
   * Gives a record of `kind` the status `status` (where its kind keeps it: an order's `settlement.status`).
   *
   * @example
   * fake.setStatus('withdrawal', 'w-1', 'Failed', { afterReads: 2 });
   */
  setStatus(kind: StatusKind, externalId: string, status: string, options?: ChangeOptions): void {
    if (typeof status !== 'string' || status === '')
      throw new TypeError(`setStatus: status must be a non-empty string, got ${quote(status)}`);
    this.#update(kind, externalId, fakeKind(checkKind(kind, 'setStatus()')).withStatus(status), options, 'setStatus()');
  }

  /**
   * The record of `kind` reaches its successful end, the status its provider event announces (an order `Settled`).
   *
   * @example
   * fake.settle('order', 'o-1', { afterReads: 2 }); // two more reads see it pending, the third Settled
   */
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

  /**
   * The order's crypto swap (or BRZ payment) settles: `settlement.status` becomes `Settled`.
   * `tradeId` also sets `settlement.tradeId`; otherwise it is kept (null for BRZ).
   *
   * @example
   * fake.settleOrder('o-1');                     // visible at the next read
   * fake.settleOrder('o-2', { afterReads: 2 });  // two more reads see it pending, the third Settled
   */
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
   * The next `count` requests (of those `options.only` picks) fail with `status`, or, with
   * `'network'`, lose their connection without a response. Later calls queue behind earlier ones;
   * a request `only` does not pick passes and leaves the fault waiting.
   *
   * @example
   * fake.failNext(1, 503);                          // the client retries and succeeds
   * fake.failNext(3, 429, { retryAfter: 1 });       // with Retry-After: 1
   * fake.failNext(1, 'network', { only: 'token' }); // the next token exchange gets no response
   * fake.failNext(1, 503, { only: { kind: 'order', externalId: 'o-1' } }); // only a read of order o-1
   */
  failNext(count: number, status: FaultStatus, options?: FailNextOptions): void {
    this.#faults.add(count, status, options);
  }

  /** Injected failures not yet used. */
  get pendingFaults(): number {
    return this.#faults.pending;
  }

  /**
   * Every response is held back `ms` milliseconds (0 turns it off), e.g. to test a client timeout.
   * A request aborted meanwhile is answered at once.
   */
  setDelay(ms: number): void {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      throw new TypeError(`setDelay: ms must be a number of at least 0, got ${quote(ms)}`);
    }
    this.#delayMs = ms;
  }

  /** Every access token issued so far stops working (401), as after a key rotation on the service. */
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
   * Back to the state right after creation: the partners and routes as first given (routes added
   * with `route()` removed), no records of any kind, no remembered idempotency keys, an empty
   * log, zeroed stats, no faults or delay, and every token revoked.
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

  /**
   * Serves the fake over real HTTP with node:http (Node, Bun, Deno), on 127.0.0.1 and a free port
   * by default. `url` is the origin to pass as the client's `baseUrl`; `close()` stops the server
   * and ends its keep-alive connections.
   *
   * @example
   * const server = await fake.listen();
   * const client = new CheckoutClient({ baseUrl: server.url, partnerId: 'p-1', partnerSecret: 's-1' });
   * await server.close();
   */
  listen(options: ListenOptions = {}): Promise<FakeServer> {
    return serveOnNodeHttp((request) => this.respond(request), options);
  }

  /**
   * The whole service, as every adapter (fetch, msw, node:http) calls it: logs the request, applies
   * injected faults and the delay, routes it. Resolves with the `Response`, or with
   * an internal marker symbol for an injected `'network'` fault. Prefer `fake.fetch` in your own code.
   */
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

  /** The records of `kind`; a `TypeError` for a kind the table does not have. */
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
