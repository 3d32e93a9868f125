import { quote } from '../internal/quote.js';
import { typeName } from '../internal/type-name.js';
import type { RecordOf, StatusKind } from '../kinds.js';
import { recordReadShapes } from './fake-kinds.js';
import type { ChangeOptions } from './records.js';
import { problem } from './responses.js';

/** The methods a partner route may answer. */
export type FakeRouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const METHODS: readonly FakeRouteMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The names of a path template's `:name` segments, e.g. `'orderId'` for `'/orders/:orderId/payment'`. */
export type FakeRouteParamNames<Path extends string> = Path extends `${string}:${infer Rest}`
  ? Rest extends `${infer Name}/${infer Tail}`
    ? Name | FakeRouteParamNames<Tail>
    : Rest
  : never;

/** A route's path parameters, percent-decoded: `{ orderId: string }` for `'/orders/:orderId/payment'`. */
export type FakeRouteParams<Path extends string = string> = string extends Path
  ? Readonly<Record<string, string>>
  : Readonly<Record<FakeRouteParamNames<Path>, string>>;

/** The fake's record methods that take the kind, as a partner route sees them on `request.fake`. */
export interface FakeRecordsByKind {
  /** Adds a record of `kind`, or replaces the one with the same `externalId`; see `FakeCheckout.setRecord`. */
  setRecord<K extends StatusKind>(kind: K, record: RecordOf<K>): RecordOf<K>;
  /** Merges `patch` into a record of `kind`; see `FakeCheckout.updateRecord`. */
  updateRecord<K extends StatusKind>(kind: K, externalId: string, patch: Partial<RecordOf<K>>, options?: ChangeOptions): void;
  /** Gives a record of `kind` the status `status`; see `FakeCheckout.setStatus`. */
  setStatus(kind: StatusKind, externalId: string, status: string, options?: ChangeOptions): void;
  /** The record of `kind` reaches its successful end; see `FakeCheckout.settle`. */
  settle(kind: StatusKind, externalId: string, options?: ChangeOptions): void;
  /** A copy of the record of `kind` as last set (no read counted), or `undefined`. */
  getRecord<K extends StatusKind>(kind: K, externalId: string): RecordOf<K> | undefined;
  /** Removes a record of `kind`. */
  deleteRecord(kind: StatusKind, externalId: string): boolean;
}

/** Each kind's own record methods on the fake (`setOrder`, `getOrder`, ...), named from the kinds table. */
export type FakeKindRecords = {
  [K in StatusKind as `set${Capitalize<K>}`]: {
    /** Adds or replaces a record of the kind its name says, as `setRecord(kind, record)`. */
    set(record: RecordOf<K>): RecordOf<K>;
  }['set'];
} & {
  [K in StatusKind as `update${Capitalize<K>}`]: {
    /** Merges `patch` into a record of the kind its name says, as `updateRecord(kind, externalId, patch, options)`. */
    update(externalId: string, patch: Partial<RecordOf<K>>, options?: ChangeOptions): void;
  }['update'];
} & {
  [K in StatusKind as `get${Capitalize<K>}`]: {
    /** A copy of the record of the kind its name says, or `undefined`, as `getRecord(kind, externalId)`. */
    get(externalId: string): RecordOf<K> | undefined;
  }['get'];
} & {
  [K in StatusKind as `delete${Capitalize<K>}`]: {
    /** Removes a record of the kind its name says, as `deleteRecord(kind, externalId)`. */
    delete(externalId: string): boolean;
  }['delete'];
};

/** The fake's record methods by name, as a partner route sees them on `request.fake`. */
export interface FakeRecords extends FakeKindRecords {
  /** `settlement.status` becomes `Settled`; see `FakeCheckout.settleOrder`. */
  settleOrder(externalId: string, options?: ChangeOptions & { tradeId?: string | undefined }): void;
  /** `settlement.status` becomes `Cancelled`. */
  cancelOrder(externalId: string, options?: ChangeOptions): void;
  /** `status` becomes `Completed`. */
  completeWithdrawal(externalId: string, options?: ChangeOptions): void;
}

/** What a partner route's handler is called with: one request, authenticated by the fake. */
export interface FakeRouteRequest<Path extends string = string> {
  /** Upper-case HTTP method. */
  readonly method: FakeRouteMethod;
  /** The path below the API base as received (no query), e.g. `/orders/o-1/payment`. */
  readonly path: string;
  /** The path parameters, percent-decoded. */
  readonly params: FakeRouteParams<Path>;
  /** The query string. */
  readonly query: URLSearchParams;
  /** The JSON body, parsed, or `undefined`; a body that is not JSON gets 400 before the handler runs. */
  readonly body: unknown;
  /** The request headers. */
  readonly headers: Headers;
  /** The partner the Bearer token was issued to. */
  readonly partner: {
    /** The partner's id (`x-partner-id` of its token exchange). */
    readonly partnerId: string;
  };
  /** The `Idempotency-Key` header, when sent. */
  readonly idempotencyKey: string | undefined;
  /** The fake's `x-request-id` for this request. */
  readonly requestId: string;
  /** The fake's records, to create or change what the route does. */
  readonly fake: FakeRecords & FakeRecordsByKind;
}

/** What a partner route's handler returns; the fake adds `content-type` and `x-request-id`. */
export interface FakeRouteResponse {
  /** An HTTP status from 200 to 599. @default 200 */
  status?: number | undefined;
  /** Sent as JSON; no body when `undefined`. */
  body?: unknown;
  /** More response headers. */
  headers?: Record<string, string> | undefined;
}

/** An endpoint the partner adds to the fake: `path` is below the API base as `client.request` takes it; `:name` is a parameter. */
export interface FakeRoute<Path extends string = string> {
  /** The method it answers (case-insensitive). */
  method: FakeRouteMethod | Lowercase<FakeRouteMethod>;
  /** The path template below the API base, e.g. `'/checkouts'` or `'/orders/:orderId/payment'`. */
  path: Path;
  /** Answers one request (may be async); a throw becomes a 500. A method, so a route with typed params is a `FakeRoute` too. */
  handler(request: FakeRouteRequest<Path>): FakeRouteResponse | Promise<FakeRouteResponse>;
}

/**
 * A {@link FakeRoute} with its parameters typed from the template, checked as the fake checks it.
 *
 * @example
 * const pay = defineFakeRoute('POST', '/orders/:orderId/payment', ({ params, fake }) => {
 *   fake.settleOrder(params.orderId);
 *   return { status: 201, body: { tradeId: fake.getOrder(params.orderId)?.settlement?.tradeId ?? null } };
 * });
 */
export function defineFakeRoute<Path extends string>(
  method: FakeRoute['method'],
  path: Path,
  handler: (request: FakeRouteRequest<Path>) => FakeRouteResponse | Promise<FakeRouteResponse>,
): FakeRoute<Path> {
  const route: FakeRoute<Path> = { method, path, handler };
  compileRoute(route, 'defineFakeRoute');
  return route;
}

type Segment = { readonly literal: string } | { readonly param: string };

export interface CompiledRoute {
  readonly method: FakeRouteMethod;
  readonly template: string;
  readonly segments: readonly Segment[];
  /** The template with its parameter names blanked, to find two routes for the same paths. */
  readonly shape: string;
  readonly handler: (request: FakeRouteRequest) => FakeRouteResponse | Promise<FakeRouteResponse>;
}

/** The fake's own endpoints: a partner route cannot take their paths. */
const BUILT_IN_SHAPES = new Map([['/auth/token', 'POST /auth/token'], ['/auth/me', 'GET /auth/me'], ...recordReadShapes()]);

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** The characters a literal path segment may hold (RFC 3986 pchar, without `%` and `:`). */
const LITERAL = /^[A-Za-z0-9\-._~!$&'()*+,;=@]+$/;
const KEYS = new Set(['method', 'path', 'handler']);

export function compileRoute(value: unknown, where: string): CompiledRoute {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError(`${where} must be an object { method, path, handler }, got ${typeName(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!KEYS.has(key)) throw new TypeError(`${where}: unknown option ${quote(key)} (a route has method, path and handler)`);
  }
  const route = value as Partial<Record<keyof FakeRoute, unknown>>;
  const method = typeof route.method === 'string' ? route.method.toUpperCase() : undefined;
  if (method === undefined || !(METHODS as readonly string[]).includes(method)) {
    throw new TypeError(`${where}.method must be one of ${METHODS.join(', ')}, got ${quote(route.method)}`);
  }
  const template = route.path;
  if (typeof template !== 'string' || !template.startsWith('/')) {
    throw new TypeError(
      `${where}.path must be a string starting with "/" (below the API base, e.g. "/orders/:orderId/payment"), got ${quote(template)}`,
    );
  }
  const segments = parseTemplate(template, `${where}.path ${quote(template)}`);
  const shape = '/' + segments.map((segment) => ('param' in segment ? ':' : segment.literal)).join('/');
  const builtIn = BUILT_IN_SHAPES.get(shape);
  if (builtIn !== undefined) {
    throw new TypeError(`${where}.path ${quote(template)} is the fake's own endpoint (${builtIn}); it cannot be replaced`);
  }
  if (typeof route.handler !== 'function') {
    throw new TypeError(`${where}.handler must be a function, got ${typeName(route.handler)}`);
  }
  return {
    method: method as FakeRouteMethod,
    template,
    segments,
    shape,
    handler: route.handler as CompiledRoute['handler'],
  };
}

function parseTemplate(template: string, where: string): Segment[] {
  if (template.startsWith('/api/')) {
    throw new TypeError(`${where} must be below the API base, as client.request takes it: drop the "/api/v1/partner-api" prefix`);
  }
  if (/[?#]/.test(template)) throw new TypeError(`${where} must not contain a query or fragment`);
  if (template === '/') throw new TypeError(`${where} must name an endpoint, not the API base itself`);
  const names = new Set<string>();
  return template
    .slice(1)
    .split('/')
    .map((text, i): Segment => {
      if (text === '') throw new TypeError(`${where} has an empty segment (segment ${i + 1}): remove the doubled or trailing "/"`);
      if (text.startsWith(':')) {
        const name = text.slice(1);
        if (!IDENTIFIER.test(name)) {
          throw new TypeError(
            `${where}: parameter ${quote(text)} must be ":" and a name made of letters, digits, _ or $ (one whole segment)`,
          );
        }
        if (names.has(name)) throw new TypeError(`${where}: parameter ":${name}" appears twice`);
        names.add(name);
        return { param: name };
      }
      if (text === '.' || text === '..') throw new TypeError(`${where}: a "${text}" segment is not allowed`);
      if (text.includes('*')) throw new TypeError(`${where}: wildcards are not supported; use a ":name" parameter segment`);
      if (!LITERAL.test(text)) {
        throw new TypeError(
          `${where}: segment ${quote(text)} may only hold letters, digits and - . _ ~ ! $ & ' ( ) + , ; = @ (":" starts a parameter)`,
        );
      }
      return { literal: text };
    });
}

export type RouteMatch =
  | { readonly route: CompiledRoute; readonly params: Record<string, string> }
  | { readonly allow: readonly FakeRouteMethod[] }
  | { readonly badEncoding: true }
  | undefined;

export class PartnerRoutes {
  readonly #initial: readonly CompiledRoute[];
  #routes: CompiledRoute[];

  constructor(routes: unknown) {
    if (routes === undefined) {
      this.#initial = [];
    } else {
      if (!Array.isArray(routes)) throw new TypeError(`routes must be an array of { method, path, handler }, got ${typeName(routes)}`);
      const compiled: CompiledRoute[] = [];
      routes.forEach((route, i) => {
        const one = compileRoute(route, `routes[${i}]`);
        checkNotTwice(compiled, one, `routes[${i}]`);
        compiled.push(one);
      });
      this.#initial = compiled;
    }
    this.#routes = [...this.#initial];
  }

  add(route: unknown, where: string): void {
    const one = compileRoute(route, where);
    checkNotTwice(this.#routes, one, where);
    this.#routes.push(one);
  }

  reset(): void {
    this.#routes = [...this.#initial];
  }

  get size(): number {
    return this.#routes.length;
  }

  /** The most specific route for `method` and `path`: literal segments before parameters, from the left. */
  match(method: string, path: string): RouteMatch {
    if (this.#routes.length === 0) return undefined;
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const raw = trimmed.slice(1).split('/');
    let decoded: string[];
    try {
      decoded = raw.map((segment) => decodeURIComponent(segment));
    } catch {
      return { badEncoding: true };
    }
    const candidates = this.#routes.filter(
      (route) =>
        route.segments.length === raw.length &&
        route.segments.every((segment, i) =>
          'param' in segment ? decoded[i] !== '' : segment.literal === raw[i] || segment.literal === decoded[i],
        ),
    );
    if (candidates.length === 0) return undefined;
    const forMethod = candidates.filter((route) => route.method === method).sort(bySpecificity)[0];
    if (forMethod === undefined) return { allow: [...new Set(candidates.map((route) => route.method))] };
    const params: Record<string, string> = {};
    forMethod.segments.forEach((segment, i) => {
      if ('param' in segment) params[segment.param] = decoded[i]!;
    });
    return { route: forMethod, params };
  }
}

function checkNotTwice(routes: readonly CompiledRoute[], route: CompiledRoute, where: string): void {
  const same = routes.find((other) => other.method === route.method && other.shape === route.shape);
  if (same !== undefined) {
    throw new TypeError(
      `${where}: ${route.method} ${quote(route.template)} is already a route (${same.method} ${quote(same.template)} answers the same paths)`,
    );
  }
}

function bySpecificity(a: CompiledRoute, b: CompiledRoute): number {
  for (let i = 0; i < a.segments.length; i += 1) {
    const aParam = 'param' in a.segments[i]!;
    const bParam = 'param' in b.segments[i]!;
    if (aParam !== bParam) return aParam ? 1 : -1;
  }
  return 0;
}

/** The oldest keys are forgotten past it, so a sandbox stays bounded. */
const MAX_IDEMPOTENCY_KEYS = 10_000;
/** 1 to 255 visible ASCII characters, as the client sends them. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

interface StoredResponse {
  readonly status: number;
  readonly headers: readonly [string, string][];
  readonly body: string | undefined;
}

interface KeyEntry {
  readonly fingerprint: string;
  readonly what: string;
  response: StoredResponse | undefined;
}

/**
 * Responses by partner and `Idempotency-Key`: the same request gets the first response again (`idempotent-replayed`),
 * another method, path or body 422, and 409 while the first runs.
 */
export class IdempotencyKeys {
  readonly #entries = new Map<string, KeyEntry>();

  clear(): void {
    this.#entries.clear();
  }

  /** Runs `handle` once per key; a failure of the route itself is not remembered, so a retry runs it again. */
  async run(
    scope: { partnerId: string; key: string; method: string; target: string; body: string; requestId: string },
    handle: () => Promise<{ response: Response; remember: boolean }>,
  ): Promise<Response> {
    const id = `${scope.partnerId}\u0000${scope.key}`;
    const fingerprint = `${scope.method} ${scope.target}\n${scope.body}`;
    const existing = this.#entries.get(id);
    if (existing !== undefined) {
      if (existing.fingerprint !== fingerprint) {
        const what = `${scope.method} ${scope.target}`;
        const first = existing.what === what ? `${what} with another body` : `${existing.what}, not ${what}`;
        return problem(
          422,
          'idempotency_key_reused',
          `The Idempotency-Key ${quote(scope.key)} was first used for ${first}; ` +
            'a key stands for one operation: send the same request again, or use a new key for a new operation',
          scope.requestId,
        );
      }
      if (existing.response === undefined) {
        return problem(
          409,
          'idempotency_key_in_use',
          `A request with the Idempotency-Key ${quote(scope.key)} is still being processed; retry later`,
          scope.requestId,
          {
            'retry-after': '1',
          },
        );
      }
      const stored = existing.response;
      const headers = new Headers(stored.headers as [string, string][]);
      headers.set('idempotent-replayed', 'true');
      return new Response(stored.body ?? null, { status: stored.status, headers });
    }
    const entry: KeyEntry = { fingerprint, what: `${scope.method} ${scope.target}`, response: undefined };
    this.#entries.set(id, entry);
    let outcome: { response: Response; remember: boolean };
    try {
      outcome = await handle();
    } catch (error) {
      this.#entries.delete(id);
      throw error;
    }
    if (!outcome.remember || this.#entries.get(id) !== entry) {
      if (this.#entries.get(id) === entry) this.#entries.delete(id);
      return outcome.response;
    }
    const body = outcome.response.body === null ? undefined : await outcome.response.clone().text();
    const headers: [string, string][] = [];
    outcome.response.headers.forEach((value, name) => headers.push([name, value]));
    entry.response = { status: outcome.response.status, headers, body };
    while (this.#entries.size > MAX_IDEMPOTENCY_KEYS) this.#entries.delete(this.#entries.keys().next().value as string);
    return outcome.response;
  }
}

/** Serves one request with a partner route (auth already checked by the fake). */
export async function servePartnerRoute(
  request: Request,
  url: URL,
  path: string,
  match: { route: CompiledRoute; params: Record<string, string> },
  context: { partnerId: string; requestId: string; records: FakeRecords & FakeRecordsByKind; idempotency: IdempotencyKeys },
): Promise<Response> {
  const { route, params } = match;
  const { requestId } = context;
  const text = await request.text();
  let body: unknown;
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      return problem(400, 'invalid_json', `The body of ${route.method} ${path} is not valid JSON`, requestId);
    }
  }
  const rawKey = request.headers.get('idempotency-key');
  if (rawKey !== null && !IDEMPOTENCY_KEY.test(rawKey)) {
    return problem(400, 'invalid_idempotency_key', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters', requestId);
  }
  const idempotencyKey = rawKey ?? undefined;
  const run = () =>
    runHandler(route, {
      method: route.method,
      path,
      params,
      query: new URLSearchParams(url.search),
      body,
      headers: new Headers(request.headers),
      partner: { partnerId: context.partnerId },
      idempotencyKey,
      requestId,
      fake: context.records,
    });
  if (idempotencyKey === undefined || route.method === 'GET') return (await run()).response;
  return context.idempotency.run(
    {
      partnerId: context.partnerId,
      key: idempotencyKey,
      method: route.method,
      target: path + url.search,
      body: body === undefined ? '' : canonicalJson(body),
      requestId,
    },
    run,
  );
}

async function runHandler(route: CompiledRoute, request: FakeRouteRequest): Promise<{ response: Response; remember: boolean }> {
  const name = `${route.method} ${route.template}`;
  const failed = (message: string) => ({
    response: problem(500, 'route_failed', `The partner route ${name} ${message}`, request.requestId),
    remember: false,
  });
  let result: unknown;
  try {
    result = await route.handler(request);
  } catch (error) {
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : typeName(error);
    return failed(`threw ${detail}`);
  }
  if (result === null || typeof result !== 'object' || Array.isArray(result) || result instanceof Response) {
    return failed(`returned ${result instanceof Response ? 'a Response' : typeName(result)}; return { status?, body?, headers? }`);
  }
  const out = result as Record<string, unknown>;
  const unknownKey = Object.keys(out).find((key) => key !== 'status' && key !== 'body' && key !== 'headers');
  if (unknownKey !== undefined) return failed(`returned an unknown key ${quote(unknownKey)}; return { status?, body?, headers? }`);
  const status = out['status'] ?? 200;
  if (!Number.isInteger(status) || (status as number) < 200 || (status as number) > 599) {
    return failed(`returned status ${quote(status)}; a status is a whole number from 200 to 599`);
  }
  const headers: Record<string, string> = {};
  if (out['headers'] !== undefined) {
    if (out['headers'] === null || typeof out['headers'] !== 'object') return failed('returned headers that are not an object of strings');
    for (const [key, value] of Object.entries(out['headers'])) {
      if (typeof value !== 'string') return failed(`returned header ${quote(key)} as ${typeName(value)}; header values are strings`);
      headers[key.toLowerCase()] = value;
    }
  }
  const noBody = status === 204 || status === 205 || status === 304;
  if (out['body'] === undefined || noBody) {
    if (out['body'] !== undefined) return failed(`returned a body with status ${status as number}, which has none`);
    return {
      response: new Response(null, { status: status as number, headers: { ...headers, 'x-request-id': request.requestId } }),
      remember: true,
    };
  }
  let serialized: string | undefined;
  try {
    serialized = JSON.stringify(out['body']);
  } catch (error) {
    return failed(`returned a body that is not JSON data (${error instanceof Error ? error.message : typeName(error)})`);
  }
  if (serialized === undefined) return failed(`returned a body that is not JSON data (${typeName(out['body'])})`);
  const response = new Response(serialized, {
    status: status as number,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers, 'x-request-id': request.requestId },
  });
  return { response, remember: true };
}

/** JSON with object keys sorted, so two bodies that differ only in key order are the same request. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
