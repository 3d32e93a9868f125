// Owns its retry loop: turns, body reads and the retry budget are the client's; ky would decide each a second time.
import {
  ApiError,
  ConnectionError,
  ResponseTooLargeError,
  ResponseValidationError,
  statusErrorOf,
  TimeoutError,
  type CheckoutError,
  type ValidationIssue,
} from '../errors.js';
import type { LoadControl } from './load/load-control.js';
import { refusalOf, refused } from './load/refusal.js';
import type { ParseSchema } from '../schemas.js';
import { attemptLog, clientLogError, type AttemptLog, type LogWriter } from './log.js';
import type { LogError } from '../logger.js';
import { BodyTooLarge, readBody } from './read-body.js';
import { lazy } from '../internal/lazy.js';
import { LEADING_SLASHES } from '../internal/path.js';
import { retryAfterMs } from '../internal/retry-after.js';
import { credentialValues, redactorReady, redactShort } from './redact-short.js';

export interface TransportOptions {
  /** The partner API base, e.g. `https://checkout.example.com/api/v1/partner-api`. */
  apiBase: string;
  timeoutMs: number;
  maxRetries: number;
  maxResponseBytes: number;
  fetch: typeof globalThis.fetch | undefined;
  log: LogWriter;
  /** Concurrency, pace, 429 pauses and the retry budget: every attempt takes its turn here. */
  load: LoadControl;
}

/** What a call did, filled in by every {@link Transport.send} it makes. */
export interface CallTrace {
  /** HTTP attempts made so far. */
  attempts: number;
  /** The last successful response, once there is one. */
  response: Response | undefined;
  /** Milliseconds the call's requests waited for their turn (rateLimit, a Retry-After pause). */
  queuedMs: number;
}

export interface SendOptions<T> {
  method: string;
  /** Path below the API base, already encoded, starting with `/`. */
  path: string;
  headers: Record<string, string>;
  /** Retry on network errors, timeouts, 408, 429 and 5xx (GETs, the token exchange and requests with an idempotency key). */
  retry: boolean;
  /** Overrides the client's `maxRetries`. */
  maxRetries?: number | undefined;
  schema: ParseSchema<T> | undefined;
  json?: unknown;
  searchParams?: Record<string, string | number | boolean> | URLSearchParams | undefined;
  /**
   * The `externalId` of the record asked for (the by-external-id reads): a valid record that carries
   * another one is refused with a `ResponseValidationError` naming both, and not retried (a caching
   * proxy or a service bug answering B's record for A would repeat it; a retry would hide it).
   */
  externalId?: string | undefined;
  /** The call's signal: the caller's, combined with the call's deadline when it has one. */
  signal?: AbortSignal | undefined;
  /** `performance.now()` at which the call times out: a `Retry-After` reaching past it fails at once. */
  deadline?: number | undefined;
  /** The call's own `timeoutMs` (that `deadline` comes from), for the message of a call that ran out of it in the queue. */
  callTimeoutMs?: number | undefined;
  /** Counts the call's attempts and keeps its response. */
  trace: CallTrace;
  /** Credentials this request does not carry but a service may still quote (the partner secret, on a business call): redacted from its errors too. */
  alsoRedact?: string | undefined;
}

const RETRY_STATUSES = [408, 429, 500, 502, 503, 504];
/** A `Retry-After` longer than this fails the call at once, so a misconfigured service cannot park a call for hours. */
const MAX_RETRY_AFTER_MS = 60_000;
/** The first retry's backoff without `Retry-After`; each further one doubles it, and each is drawn at random below it (full jitter). */
const BACKOFF_MS = 300;
/**
 * How long an aborted attempt keeps its turn when its fetch does not settle: fetch settles within
 * a tick of the abort (so the bound on requests in flight holds as fetch sees them), a custom one
 * that ignores the signal must not hold the slot for ever.
 */
const ABORT_GRACE_MS = 1_000;
/**
 * How long the slot of an attempt cut by its abort (its timeout, the call's signal) is held after
 * fetch settled. Node's fetch (undici 7) destroys the aborted request's socket at once, but then
 * opens a replacement connection for the aborted request before noticing it was aborted
 * (nodejs/undici#5845), and that connection sits idle in the pool. Sent at once, the next request
 * finds no idle connection yet and opens its own, so against a service that never answers every
 * slot came to hold two or three sockets (193 at concurrency 64, 200 callers). Held a little, the
 * next request finds the replacement connected and uses it: sockets stay within `concurrency` plus
 * a few (measured on loopback with plain fetch: 64 workers aborting at 300 ms hold 64 to 66 sockets
 * with a 50 ms hold, 90 to 101 without; the client with 200 callers holds 66 at concurrency 64, 3
 * at 1). 100 ms leaves room for a slower connection set-up; only aborted attempts pay it.
 */
const ABORT_SETTLE_MS = 100;

/** The reason an attempt's own timer aborts it with (never the call's: that one aborts with the call's reason). */
class AttemptTimedOut {}
const TIMED_OUT = new AttemptTimedOut();

/** Thrown when a custom `fetch` followed a redirect despite `redirect: 'manual'`. */
class FollowedRedirect {
  constructor(readonly url: string) {}
}

/** How an attempt ended: a response read to its end (`text`), or `error` (with the response, when its headers came). */
type Outcome = { response: Response; text: string; error?: undefined } | { response: Response | undefined; text: undefined; error: unknown };

/**
 * The client's HTTP exchange with the partner API, and the mapping of every failure onto the error
 * tree. This is the hot path of every status read (see bench/README.md): per attempt one `Request`,
 * one `AbortController` and one timer, nothing else unless something waits or fails.
 *
 * The body is read inside the attempt ({@link readBody}): its timeout covers it (and aborts the
 * request when it fires), a body cut or stalled midway is retried like any network error, and its
 * size is capped.
 */
export class Transport {
  /** The API base without a trailing slash; paths are appended to it. */
  readonly base: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly fetch: typeof globalThis.fetch | undefined;
  readonly maxRetries: number;
  readonly log: LogWriter;
  readonly load: LoadControl;

  constructor(options: TransportOptions) {
    this.base = options.apiBase.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs;
    this.maxBytes = options.maxResponseBytes;
    this.fetch = options.fetch;
    this.maxRetries = options.maxRetries;
    this.log = options.log;
    this.load = options.load;
  }

  /** Sends the request, retrying what is safe to retry, and resolves with its parsed 2xx body. */
  send<T>(options: SendOptions<T>): Promise<T> {
    return new Sending(this, options).run();
  }
}

/** One call's requests through {@link Transport.send}: its turns, attempts, retries and outcome. */
class Sending<T> {
  readonly #t: Transport;
  readonly #options: SendOptions<T>;
  readonly #url: string;
  readonly #init: RequestInit;
  readonly #log: AttemptLog | undefined;
  readonly #firstAttempt: number;
  readonly #maxRetries: number;
  #retries = 0;
  /** Whether a request of the call waits for its turn now: the call's deadline firing then is a queue timeout. */
  #queued = false;
  /** How long the current attempt waited for its turn (a retry's wait counts in its attempt's timeout). */
  #waitedMs = 0;

  constructor(transport: Transport, options: SendOptions<T>) {
    this.#t = transport;
    this.#options = options;
    this.#url = urlOf(transport.base, options);
    this.#init = requestInit(options);
    const { log } = transport;
    this.#log = log === undefined ? undefined : attemptLog(log, options.method, options.path, (id) => redactShort(id, credentialValues(options)));
    this.#firstAttempt = options.trace.attempts;
    this.#maxRetries = options.retry ? (options.maxRetries ?? transport.maxRetries) : 0;
  }

  async run(): Promise<T> {
    const { timeoutMs } = this.#t;
    // the first request waits for its turn before its attempt starts (at most half of timeoutMs,
    // within the call's deadline), and once sent has its whole timeoutMs; a retry's wait counts in its attempt
    let ticket = await this.#firstTurn(performance.now() + timeoutMs);
    let outcome = await this.#attempt(ticket, performance.now() + timeoutMs);
    for (;;) {
      const delay = this.#retryDelay(outcome);
      if (delay === undefined) return this.#settle(outcome);
      this.#retries += 1;
      await this.#sleep(delay).catch((error: unknown) => this.#reject(error));
      const attemptEnd = performance.now() + timeoutMs;
      ticket = await this.#turn(attemptEnd).catch((error: unknown) => this.#reject(error));
      outcome = await this.#attempt(ticket, attemptEnd);
    }
  }

  /** The first request's turn; a queue timeout bounded by the call's own `timeoutMs` is said in its terms. */
  async #firstTurn(end: number): Promise<number> {
    try {
      const ticket = await this.#turn(end);
      // its attempt starts once it has its turn: that wait is not part of its timeoutMs
      this.#waitedMs = 0;
      return ticket;
    } catch (error) {
      const { deadline, callTimeoutMs } = this.#options;
      const own = deadline !== undefined && deadline < end && callTimeoutMs !== undefined;
      return this.#reject(own ? ownDeadlineInQueue(error, this.#options) : error);
    }
  }

  /** Waits for a turn at the client's gate (concurrency, pace, a `Retry-After` pause) before `end`; resolves with its ticket. */
  async #turn(end: number): Promise<number> {
    const { signal, deadline, trace } = this.#options;
    const turn = this.#t.load.enter(signal, deadline === undefined ? end : Math.min(deadline, end), this.#options, trace);
    if (typeof turn === 'number') {
      this.#waitedMs = 0;
      return turn;
    }
    const before = performance.now();
    // left true when the wait fails: the call's deadline firing in the queue is then said to be a queue timeout
    this.#queued = true;
    const ticket = await turn;
    this.#queued = false;
    this.#waitedMs = performance.now() - before;
    trace.queuedMs += this.#waitedMs;
    return ticket;
  }

  /** One HTTP attempt with its turn (`ticket`), bounded by `end` and the call's signal: its {@link Outcome}, never a rejection. */
  #attempt(ticket: number, end: number): Promise<Outcome> {
    const { trace } = this.#options;
    trace.attempts += 1;
    const attempt = trace.attempts;
    this.#log?.start(attempt);
    return new Promise<Outcome>((resolve) => {
      const run = new AttemptRun(this.#t.load, ticket, end, this.#options.signal, (outcome) => {
        // returned: the entry is written before the turn is given back
        const logged = this.#logged(attempt, outcome);
        resolve(logged);
        return logged;
      });
      this.#exchange(run).then(
        (text) => run.settled({ response: run.response as Response, text }),
        (error: unknown) => run.settled({ response: run.response, text: undefined, error }),
      );
    });
  }

  /** fetch and the whole body of `run`'s request; `run` holds the request and, once its headers came, the response. */
  async #exchange(run: AttemptRun): Promise<string> {
    const init = this.#init;
    init.signal = run.signal;
    // held by the attempt until it settles: fetch follows its signal only through weak references,
    // and a Request collected mid-body would leave the body's socket open after a timeout or an abort
    const request = (run.request = new Request(this.#url, init));
    // globalThis.fetch is looked up per request (msw and test doubles replace it) and called as a
    // method: browsers and Workers throw "Illegal invocation" for a detached fetch
    const response = await (this.#t.fetch === undefined ? globalThis.fetch(request) : this.#t.fetch(request));
    run.response = response;
    if (response.redirected) throw new FollowedRedirect(response.url);
    return readBody(response, this.#t.maxBytes);
  }

  /** The outcome once its `client.attempt` entry is written (a request id that may hold a credential in an encoded form loads the full redactor first). */
  #logged(attempt: number, outcome: Outcome): Outcome | Promise<Outcome> {
    const log = this.#log;
    if (log === undefined) return outcome;
    const { response } = outcome;
    const failed = outcome.text === undefined ? attemptError(outcome.error, this.#options, this.#t.timeoutMs) : undefined;
    const ready = redactorReady(response?.headers.get('x-request-id'), credentialValues(this.#options));
    if (ready === undefined) {
      log.end(attempt, response, failed);
      return outcome;
    }
    return ready.then(() => {
      log.end(attempt, response, failed);
      return outcome;
    });
  }

  /**
   * Milliseconds to wait before retrying `outcome`, or `undefined` when it is final: a 2xx, a call
   * that may not retry (or has no retries left), a failure a retry would repeat, a `Retry-After`
   * past the cap or the call's deadline, or a retry budget run dry (each retry draws from it).
   */
  #retryDelay(outcome: Outcome): number | undefined {
    if (this.#retries >= this.#maxRetries || this.#options.signal?.aborted === true) return undefined;
    const load = this.#t.load;
    if (outcome.text !== undefined) {
      const { response } = outcome;
      if (!RETRY_STATUSES.includes(response.status)) return undefined;
      // the partner API times retries by Retry-After alone (API.md): no other rate-limit header
      const wait = retryAfterMs(response.headers);
      const deadline = this.#options.deadline;
      if (wait !== undefined && (wait > MAX_RETRY_AFTER_MS || (deadline !== undefined && performance.now() + wait >= deadline))) return undefined;
      if (!load.mayRetry(false)) return undefined;
      return wait ?? this.#backoff();
    }
    if (outcome.error !== TIMED_OUT && !isNetworkError(outcome.error)) return undefined;
    return load.mayRetry(true) ? this.#backoff() : undefined;
  }

  /** Exponential backoff with full jitter: at random below 300 ms, 600 ms, 1.2 s… */
  #backoff(): number {
    return Math.random() * BACKOFF_MS * 2 ** (this.#retries);
  }

  /** Waits `ms` before a retry; rejects with the call signal's reason when it aborts meanwhile. */
  #sleep(ms: number): Promise<void> {
    const signal = this.#options.signal;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The call's result from its last attempt's outcome: the parsed 2xx body, or the error it rejects with. */
  #settle(outcome: Outcome): Promise<T> | T {
    if (outcome.text === undefined) return this.#reject(outcome.error);
    const { response } = outcome;
    if (!response.ok) {
      const { trace } = this.#options;
      const label = labelOf(this.#options);
      return rejectWith(
        answeredError(
          (errors) => errors.statusError(response, outcome.text, this.#options),
          () => statusErrorOf(response.status, `${response.status} from ${label}`, { request: label, attempts: trace.attempts }),
        ),
      );
    }
    this.#t.load.succeeded(this.#options.trace.attempts - this.#firstAttempt > 1);
    this.#options.trace.response = response;
    return parseBody(response, outcome.text, this.#options);
  }

  /** Rejects with the error tree's error for `error`. */
  async #reject(error: unknown): Promise<never> {
    throw await toCheckoutError(error, this.#options, this.#queued, this.#waitedMs, this.#t.timeoutMs);
  }
}

/**
 * The life of one attempt: its timeout, its abort, and its turn at the gate. It ends (`end` gets
 * its {@link Outcome}) when fetch and the body read settle, or at once when it is aborted (its
 * timeout, the call's signal). Its turn goes back once: when fetch settles (after `end` wrote the
 * log entry), {@link ABORT_SETTLE_MS} after that when it was aborted, or {@link ABORT_GRACE_MS}
 * after the abort when fetch never settles (a custom fetch that ignores the signal costs its call
 * a timeout, not the client one of its slots forever). Its own abort listener (`handleEvent`).
 */
class AttemptRun {
  readonly signal: AbortSignal;
  /** The request sent. */
  request: Request | undefined;
  /** The response, once its headers came. */
  response: Response | undefined;
  readonly #load: LoadControl;
  readonly #ticket: number;
  readonly #sentAt = performance.now();
  readonly #callSignal: AbortSignal | undefined;
  readonly #end: (outcome: Outcome) => unknown;
  readonly #timer: ReturnType<typeof setTimeout>;
  #grace: ReturnType<typeof setTimeout> | undefined;
  #ended = false;
  #left = false;

  constructor(load: LoadControl, ticket: number, end: number, callSignal: AbortSignal | undefined, onEnd: (outcome: Outcome) => unknown) {
    this.#load = load;
    this.#ticket = ticket;
    this.#callSignal = callSignal;
    this.#end = onEnd;
    const controller = new AbortController();
    this.signal = callSignal === undefined ? controller.signal : AbortSignal.any([callSignal, controller.signal]);
    this.#timer = setTimeout(() => controller.abort(TIMED_OUT), Math.max(0, end - performance.now()));
    this.signal.addEventListener('abort', this, { once: true });
    if (this.signal.aborted) this.handleEvent();
  }

  /** Aborted: the attempt ends now, its turn goes back when fetch settles or after the grace period. */
  handleEvent(): void {
    this.#ended = true;
    clearTimeout(this.#timer);
    const callSignal = this.#callSignal;
    this.#end({ response: this.response, text: undefined, error: callSignal?.aborted === true ? callSignal.reason : TIMED_OUT });
    this.#grace = setTimeout(() => this.#leave(), ABORT_GRACE_MS);
  }

  /** fetch and the body read settled with `outcome`. */
  settled(outcome: Outcome): void {
    this.signal.removeEventListener('abort', this);
    clearTimeout(this.#grace);
    if (this.#ended) {
      holdAfterAbort(() => this.#leave());
      return;
    }
    this.#ended = true;
    clearTimeout(this.#timer);
    const logged = this.#end(outcome);
    if (logged instanceof Promise) void logged.then(() => this.#leave());
    else this.#leave();
  }

  #leave(): void {
    if (this.#left) return;
    this.#left = true;
    this.#load.leave(this.response, this.#sentAt, this.#ticket);
  }
}

/** The request's URL: the base, one slash, the path, and `searchParams` appended to its query. */
function urlOf(base: string, { path, searchParams }: SendOptions<unknown>): string {
  const url = base + path.replace(LEADING_SLASHES, '/');
  if (searchParams === undefined) return url;
  const parsed = new URL(url);
  const params = searchParams instanceof URLSearchParams ? searchParams : Object.entries(searchParams);
  for (const [name, value] of params) parsed.searchParams.append(name, String(value));
  return parsed.href;
}

/** The `RequestInit` every attempt of the call is built from (its signal is set per attempt). */
function requestInit({ method, headers, json }: SendOptions<unknown>): RequestInit {
  // the partner API has no redirects: one must never carry the credentials (or a body to trust) elsewhere
  const init: RequestInit = { method: method.toUpperCase(), headers, redirect: 'manual' };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) init.headers = { ...headers, 'content-type': 'application/json' };
  }
  return init;
}

/** Gives an aborted attempt's turn back after {@link ABORT_SETTLE_MS}, without keeping a process that is done alive. */
function holdAfterAbort(leave: () => void): void {
  const timer = setTimeout(leave, ABORT_SETTLE_MS);
  (timer as { unref?: () => void }).unref?.();
}

/** The messages fetch implementations give a failure of the network (the list ky and is-network-error keep). */
const NETWORK_MESSAGES = new Set([
  'fetch failed', // undici (Node.js)
  'terminated', // undici: the body was cut midway
  'Failed to fetch', // Chrome
  'network error', // Chrome
  'NetworkError when attempting to fetch resource.', // Firefox
  'The Internet connection appears to be offline.', // Safari 16
  'Load failed', // Safari 17+
  'Network request failed', // cross-fetch
  ' A network error occurred.', // Bun
  'Network connection lost', // Cloudflare Workers
]);

/** Whether fetch failed for the network (retried like a timeout), not for a bad request or a custom fetch's own error. */
function isNetworkError(error: unknown): error is TypeError {
  if (!(error instanceof Error) || error.name !== 'TypeError') return false;
  const { message } = error;
  return NETWORK_MESSAGES.has(message) || /^(?:Failed to fetch|Load failed) \(.*\)$/.test(message) || message.startsWith('error sending request for url');
}

/**
 * A queue timeout of a request whose wait the call's own `timeoutMs` bounded (its deadline came
 * before the end of the client's attempt): said in the call's terms, as a timeout of the call itself.
 */
function ownDeadlineInQueue(error: unknown, options: SendOptions<unknown>): unknown {
  if (refusalOf(error) !== 'checkout.queue_timeout') return error;
  const label = labelOf(options);
  return refused(
    new TimeoutError(
      `${label} did not complete within its timeoutMs (${options.callTimeoutMs} ms): it ran out while waiting for its turn in the client's queue ` +
        '(rateLimit concurrency or requestsPerSecond, a Retry-After pause), and was not sent with less than half of it left',
      { request: label, attempts: options.trace.attempts },
    ),
    'checkout.queue_timeout',
  );
}

/** `METHOD /path`, for messages; built only when something failed. */
function labelOf(options: Pick<SendOptions<unknown>, 'method' | 'path'>): string {
  return `${options.method.toUpperCase()} ${options.path}`;
}

/** What a call aborted by its signal rejects with: the signal's reason, said to be a queue timeout when its deadline fired while it waited for its turn. */
function abortReason(options: SendOptions<unknown>, reason: unknown, queued: boolean): unknown {
  if (!queued || !(reason instanceof TimeoutError)) return reason;
  return refused(
    new TimeoutError(
      `${reason.message}: it ran out while waiting for its turn in the client's queue (rateLimit concurrency or requestsPerSecond, a Retry-After pause), unsent`,
      { request: labelOf(options), attempts: options.trace.attempts },
    ),
    'checkout.queue_timeout',
  );
}

/**
 * Maps what an attempt or its turn failed with onto the error tree; an abort rejects with the
 * signal's reason. Messages quote only what is known to hold no header value (a Headers or Request
 * error quotes the offending value, which may be the token): a network error's fixed text and its
 * system error code.
 */
async function toCheckoutError(error: unknown, options: SendOptions<unknown>, queued: boolean, waitedMs: number, timeoutMs: number): Promise<unknown> {
  if (options.signal?.aborted) return abortReason(options, options.signal.reason, queued);
  // refused unsent, already typed
  if (refusalOf(error) !== undefined) return error;
  const label = labelOf(options);
  const { attempts } = options.trace;
  if (error instanceof BodyTooLarge) {
    const { status, limitBytes } = error;
    return answeredError(
      (errors) => errors.tooLarge(error, options),
      () => new ResponseTooLargeError(`${status} from ${label}: the response body is larger than maxResponseBytes (${limitBytes} bytes)`, { status, request: label, limitBytes, attempts }),
    );
  }
  if (error instanceof FollowedRedirect) {
    const message = `${label} was redirected, which the client never follows: the custom fetch must honour redirect: 'manual'`;
    return new ApiError(message, { request: label, attempts });
  }
  if (error === TIMED_OUT) {
    // the wait for a turn counts in the attempt's timeoutMs: say so, or a queue reads as a slow service
    const waited = waitedMs >= 1 ? `, ${Math.round(waitedMs)} ms of which it waited for its turn (rateLimit, a Retry-After pause)` : '';
    return new TimeoutError(`${label} timed out: no complete response (headers and body) within timeoutMs (${timeoutMs} ms)${waited}`, { request: label, attempts });
  }
  if (isNetworkError(error)) {
    return new ConnectionError(`${label} failed: ${describeNetworkError(error)}`, { request: label, cause: error, attempts });
  }
  if (error instanceof ApiError) return error;
  // an error fetch does not say is the network's (a custom fetch's, or a Headers/Request TypeError): its name only
  const name = error instanceof Error ? error.name : typeof error;
  return new ConnectionError(`${label} failed before any response arrived (${name}${codeOf(error) ?? ''})`, { request: label, attempts });
}

type ResponseErrors = typeof import('./response-errors.js');
const responseErrors = lazy(() => import('./response-errors.js'));

/**
 * The error of a call the service answered, made by `./response-errors.js` (its messages and the
 * redaction of the credentials in its headers and body), imported at the first such answer rather
 * than with the SDK: a call that succeeds never needs it. Should the import fail (an app's chunk
 * that cannot be fetched), `fallback`: the same error class, with no headers and no body, so no
 * credential can be in it.
 */
export async function answeredError(build: (errors: ResponseErrors) => CheckoutError, fallback: () => CheckoutError): Promise<CheckoutError> {
  let errors: ResponseErrors;
  try {
    errors = await responseErrors();
  } catch {
    return fallback();
  }
  return build(errors);
}

/** Rejects with the error `made` resolves with. */
async function rejectWith(made: Promise<unknown>): Promise<never> {
  throw await made;
}

/** A network error's fixed text (ky recognises it from a known list) and its system error code. */
function describeNetworkError(cause: unknown): string {
  if (!(cause instanceof Error)) return 'no response';
  return `${cause.message}${codeOf(cause.cause) ?? codeOf(cause) ?? ''}`;
}

/** ` (CODE)` for an error with a system error code such as `ECONNREFUSED`, else `undefined`. */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) ? ` (${code})` : undefined;
}

/**
 * A 2xx body, parsed as JSON and by `schema`; anything else rejects with a {@link ResponseValidationError}.
 * A record of the by-external-id reads whose `externalId` is not the one asked for is refused too:
 * the tracker, the webhook confirmation and `waitFor*` read through here, so none of them ever takes
 * B's record for A's.
 */
function parseBody<T>(response: Response, text: string, options: SendOptions<T>): T | Promise<never> {
  let data: unknown;
  if (text !== '') {
    try {
      data = JSON.parse(text);
    } catch {
      const issues = [{ code: 'invalid_json', path: [], message: 'The response body is not JSON' }];
      return rejectWith(answeredError((errors) => errors.notJson(response, text, options), () => invalid(response, options, 'the body is not JSON', issues)));
    }
  }
  const { schema, externalId } = options;
  if (schema === undefined) return data as T;
  const result = schema.safeParse(data);
  if (result.success) {
    const received = (result.data as { externalId?: unknown }).externalId;
    if (externalId === undefined || received === externalId) return result.data;
    return rejectWith(
      answeredError(
        (errors) => errors.wrongRecord(response, text, received, externalId, options),
        () => invalid(response, options, 'the service answered with the record of another externalId', []),
      ),
    );
  }
  const { issues } = result.error;
  return rejectWith(
    answeredError((errors) => errors.mismatch(response, text, data, issues, options), () => invalid(response, options, 'the body does not match the expected shape', issues)),
  );
}

/** The fallback of a refused 2xx body (see {@link answeredError}). */
function invalid(response: Response, options: SendOptions<unknown>, what: string, issues: readonly ValidationIssue[]): ResponseValidationError {
  const label = labelOf(options);
  return new ResponseValidationError(`${response.status} from ${label}: ${what}`, { status: response.status, request: label, issues, attempts: options.trace.attempts });
}

/**
 * What ended an attempt without a complete response, as its log entry's `error`: named by the error
 * it becomes, said without quoting what fetch threw (it may quote a header).
 */
function attemptError(error: unknown, options: SendOptions<unknown>, timeoutMs: number): LogError {
  if (error instanceof BodyTooLarge) {
    return { name: 'ResponseTooLargeError', message: `the response body is larger than maxResponseBytes (${error.limitBytes} bytes)`, status: error.status };
  }
  if (error instanceof FollowedRedirect) return { name: 'ApiError', message: "the custom fetch followed a redirect despite redirect: 'manual'" };
  const callSignal = options.signal;
  if (callSignal?.aborted) return clientLogError(callSignal.reason, 'the call was aborted by its signal');
  if (error === TIMED_OUT) return { name: 'TimeoutError', message: `no complete response (headers and body) within timeoutMs (${timeoutMs} ms)` };
  const name = error instanceof Error ? error.name : typeof error;
  const message = isNetworkError(error) ? describeNetworkError(error) : `failed before any response arrived (${name}${codeOf(error) ?? ''})`;
  return { name: 'ConnectionError', message };
}
