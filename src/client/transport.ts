import type { Options, RetryOptions } from 'ky';
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
import { attemptLog, type LogWriter } from './log.js';
import { kyLoaded, loadKy } from './ky.js';
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
  /** Retry on network errors, 408, 429 and 5xx (GETs, the token exchange and requests with an idempotency key). */
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

/** Gives an aborted attempt's turn back after {@link ABORT_SETTLE_MS}, without keeping a process that is done alive. */
function holdAfterAbort(leave: () => void): void {
  const timer = setTimeout(leave, ABORT_SETTLE_MS);
  (timer as { unref?: () => void }).unref?.();
}

/**
 * Logs the end of an attempt; a request id that may hold a credential in an encoded form loads the
 * full redactor first (see redact-short.ts).
 */
function logEnd(log: ReturnType<typeof attemptLog>, attempt: number, response: Response | undefined, error: string | undefined, options: SendOptions<unknown>): Promise<void> | undefined {
  const ready = redactorReady(response?.headers.get('x-request-id'), credentialValues(options));
  if (ready !== undefined) return ready.then(() => log.end(attempt, response, error));
  log.end(attempt, response, error);
  return undefined;
}

/** The headers besides Retry-After that ky would take a retry's delay from. */
const OTHER_TIMING_HEADERS = ['ratelimit-reset', 'x-ratelimit-retry-after', 'x-ratelimit-reset', 'x-rate-limit-reset'];
/** A `Retry-After` longer than this fails the call at once, so a misconfigured service cannot park a call for hours. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * ky configured once for the client, plus the mapping of every failure onto the error tree.
 *
 * This is the hot path of every status read (see bench/README.md), so each request hands ky one
 * small options object built without spreads and holding only what differs from ky's defaults
 * (ky deep-merges and normalises every key it is given, for every request): no instance defaults,
 * no `prefix`, no `method` for a GET, retry options built once.
 *
 * The body is read inside the `fetch` ky calls ({@link readBody}): that makes it part of the
 * attempt, so ky's per-attempt timeout covers it (and aborts the request when it fires), a body
 * cut or stalled midway is retried like any network error, and its size is capped.
 */
export class Transport {
  /** The API base without a trailing slash; paths are appended to it. */
  readonly #base: string;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #fetch: typeof globalThis.fetch | undefined;
  readonly #maxRetries: number;
  readonly #log: LogWriter;
  readonly #load: LoadControl;
  /** For GETs: ky's default `methods` already hold `get`. */
  readonly #retryGet: RetryOptions;
  /** For the token exchange, and POSTs with an idempotency key. */
  readonly #retryAny: RetryOptions;

  constructor(options: TransportOptions) {
    this.#base = options.apiBase.replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs;
    this.#maxBytes = options.maxResponseBytes;
    this.#fetch = options.fetch;
    this.#maxRetries = options.maxRetries;
    this.#log = options.log;
    this.#load = options.load;
    this.#retryGet = retryOptions(options.maxRetries, undefined, undefined, options.load);
    this.#retryAny = retryOptions(options.maxRetries, ['get', 'post'], undefined, options.load);
  }

  async send<T>(options: SendOptions<T>): Promise<T> {
    const { method, deadline, trace } = options;
    // what the last attempt's fetch read (the body, as text), how long it waited for its turn, and
    // whether it is waiting now (a call deadline that fires then is a queue timeout)
    const read = { text: '', waitedMs: 0, queued: false };
    // globalThis.fetch is looked up per request (msw and test doubles replace it) and called as a
    // method: browsers and Workers throw "Illegal invocation" for a detached fetch
    const fetchFn = this.#fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
    const maxBytes = this.#maxBytes;
    const log = this.#log === undefined ? undefined : attemptLog(this.#log, method, options.path, (id) => redactShort(id, credentialValues(options)));
    const load = this.#load;
    const timeoutMs = this.#timeoutMs;
    const firstAttempt = trace.attempts;
    // The call's first request takes its turn here, before ky builds anything for it: a waiting call
    // then costs a small waiter, not a Request, its signals and a timer (13 KB a waiter when it
    // waited inside ky's fetch). It waits at most half of timeoutMs (within the call's own deadline
    // and signal), and once sent has its whole timeoutMs. Retries take theirs inside ky's fetch,
    // within their attempt. A refusal or an abort here rejects as if from ky.
    let held: number | undefined;
    const end = performance.now() + timeoutMs;
    try {
      const turn = load.enter(undefined, options.signal, deadline === undefined ? end : Math.min(deadline, end), options, trace);
      if (typeof turn === 'number') {
        held = turn;
      } else {
        const before = performance.now();
        read.queued = true;
        held = await turn;
        read.queued = false;
        trace.queuedMs += performance.now() - before;
      }
    } catch (error) {
      // the call's own timeoutMs bounded the wait: say so in its terms
      const own = deadline !== undefined && deadline < end && options.callTimeoutMs !== undefined;
      throw await toCheckoutError(own ? ownDeadlineInQueue(error, options) : error, options, read, timeoutMs, load);
    }
    const init: Options = {
      headers: options.headers,
      retry: options.retry ? this.#retry(method, deadline, options.maxRetries) : 0,
      timeout: this.#timeoutMs,
      // the partner API has no redirects: one must never carry the credentials (or a body to trust) elsewhere
      redirect: 'manual',
      fetch: async (input, requestInit) => {
        const signal = input instanceof Request ? input.signal : (requestInit?.signal ?? undefined);
        // the first attempt's turn, taken before ky; a retry's (concurrency, pace, a Retry-After pause)
        // is taken here, part of its attempt, bounded by its timeout and the call's signal and deadline
        let ticket: number;
        const attemptEnd = performance.now() + timeoutMs;
        const turn = held ?? load.enter(input, signal, deadline === undefined ? attemptEnd : Math.min(deadline, attemptEnd), options, trace);
        held = undefined;
        if (typeof turn === 'number') {
          ticket = turn;
          read.waitedMs = 0;
        } else {
          const before = performance.now();
          // left true when the wait fails: the call's deadline firing in the queue is then said to be a queue timeout
          read.queued = true;
          ticket = await turn;
          read.queued = false;
          read.waitedMs = performance.now() - before;
        }
        trace.queuedMs += read.waitedMs;
        const sentAt = performance.now();
        let response: Response | undefined;
        trace.attempts += 1;
        const attempt = async (): Promise<Response> => {
          if (log === undefined) {
            response = await fetchFn(input, requestInit);
            if (response.redirected) throw new FollowedRedirect(response.url);
            read.text = await readBody(response, maxBytes);
            return response;
          }
          log.start(trace.attempts);
          try {
            response = await fetchFn(input, requestInit);
            if (response.redirected) throw new FollowedRedirect(response.url);
            read.text = await readBody(response, maxBytes);
            // awaited only when the redactor must load: the entry is written before the turn is given back
            const logged = logEnd(log, trace.attempts, response, undefined, options);
            if (logged !== undefined) await logged;
            return response;
          } catch (error) {
            const logged = logEnd(log, trace.attempts, response, attemptError(error, input, options.signal), options);
            if (logged !== undefined) await logged;
            throw error;
          }
        };
        let left = false;
        const leave = () => {
          if (left) return;
          left = true;
          load.leave(response, sentAt, ticket);
        };
        // the turn is given back when fetch settles, or ABORT_GRACE_MS after the attempt was aborted
        // (its timeout, the call's signal): a custom fetch that ignores the signal and never settles
        // costs that call its timeout, not the client one of its rateLimit.concurrency slots forever
        let grace: ReturnType<typeof setTimeout> | undefined;
        const onAbort = () => {
          grace = setTimeout(leave, ABORT_GRACE_MS);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        let completed = false;
        try {
          const answered = await attempt();
          completed = true;
          return answered;
        } finally {
          signal?.removeEventListener('abort', onAbort);
          clearTimeout(grace);
          if (completed || signal?.aborted !== true) leave();
          else holdAfterAbort(leave);
        }
      },
    };
    if (method !== 'get') init.method = method;
    if (options.json !== undefined) init.json = options.json;
    if (options.searchParams !== undefined) init.searchParams = options.searchParams;
    if (options.signal !== undefined) init.signal = options.signal;
    // a promise only until the first request has loaded ky
    const loadingKy = loadKy();
    const ky = (loadingKy instanceof Promise ? await loadingKy : loadingKy).default;
    let response: Response;
    try {
      // what ky's `prefix` did: one slash between the base and the path
      response = await ky(this.#base + options.path.replace(LEADING_SLASHES, '/'), init);
    } catch (error) {
      throw await toCheckoutError(error, options, read, this.#timeoutMs, load);
    } finally {
      // ky failed before its fetch (a bad header, an aborted signal): the turn taken for it goes back
      if (held !== undefined) load.leave(undefined, performance.now(), held);
    }
    load.succeeded(trace.attempts - firstAttempt > 1);
    trace.response = response;
    return parseBody(response, read.text, options);
  }

  #retry(method: string, deadline: number | undefined, maxRetries: number | undefined): RetryOptions {
    if (deadline === undefined && maxRetries === undefined) {
      if (method === 'get') return this.#retryGet;
      if (method === 'post') return this.#retryAny;
    }
    return retryOptions(maxRetries ?? this.#maxRetries, method === 'get' ? undefined : ['get', method], deadline, this.#load);
  }
}

function retryOptions(limit: number, methods: string[] | undefined, deadline: number | undefined, load: LoadControl): RetryOptions {
  const retry: RetryOptions = {
    limit,
    statusCodes: RETRY_STATUSES,
    afterStatusCodes: RETRY_STATUSES,
    maxRetryAfter: MAX_RETRY_AFTER_MS,
    retryOnTimeout: true,
    jitter: true,
    // a wait past the cap or past the call's deadline fails now rather than sleeping first
    shouldRetry: ({ error }) => {
      // a request the client refused to send (queue full, queue timeout, a pause past the deadline)
      if (refusalOf(error) !== undefined) return false;
      const { isHTTPError, isNetworkError, isTimeoutError } = kyLoaded();
      if (!isHTTPError(error)) {
        // what ky retries besides statuses; a timeout while still queued is the client's own (not retried)
        if (isTimeoutError(error)) return !load.timedOutWaiting(error.request) && load.mayRetry(true) ? undefined : false;
        return isNetworkError(error) && !load.mayRetry(true) ? false : undefined;
      }
      const { status, headers } = error.response;
      if (!RETRY_STATUSES.includes(status)) return undefined;
      const wait = retryAfterMs(headers);
      if (wait !== undefined && (wait > MAX_RETRY_AFTER_MS || (deadline !== undefined && performance.now() + wait >= deadline))) return false;
      // every retry draws from the client's budget: with it dry, the call fails on this error
      if (!load.mayRetry(false)) return false;
      // without Retry-After, ky times the retry by RateLimit-Reset or an X-RateLimit-* header, up to
      // maxRetryAfter and past the call's deadline; the partner API times retries by Retry-After
      // alone (API.md), so those get the client's own backoff (`true`: retry, on ky's backoff)
      return wait === undefined && OTHER_TIMING_HEADERS.some((name) => headers.has(name)) ? true : undefined;
    },
  };
  if (methods !== undefined) retry.methods = methods;
  return retry;
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

/** Thrown when a custom `fetch` followed a redirect despite `redirect: 'manual'`. */
class FollowedRedirect {
  constructor(readonly url: string) {}
}


/** `METHOD /path`, for messages; built only when something failed. */
function labelOf(options: Pick<SendOptions<unknown>, 'method' | 'path'>): string {
  return `${options.method.toUpperCase()} ${options.path}`;
}

/**
 * Maps what ky or fetch threw onto the error tree; an abort rejects with the signal's reason.
 * Messages quote only what is known to hold no header value (a Headers or Request error quotes the
 * offending value, which may be the token): a network error's fixed text and its system error code.
 */
async function toCheckoutError(
  error: unknown,
  options: SendOptions<unknown>,
  { text, waitedMs, queued }: { text: string; waitedMs: number; queued: boolean },
  timeoutMs: number,
  load: LoadControl,
): Promise<unknown> {
  if (options.signal?.aborted) {
    const reason: unknown = options.signal.reason;
    // the call's own timeoutMs ran out while this request still waited for its turn: say so
    if (queued && reason instanceof TimeoutError) {
      return refused(
        new TimeoutError(
          `${reason.message}: it ran out while waiting for its turn in the client's queue (rateLimit concurrency or requestsPerSecond, a Retry-After pause), unsent`,
          { request: labelOf(options), attempts: options.trace.attempts },
        ),
        'checkout.queue_timeout',
      );
    }
    return reason;
  }
  // refused unsent, already typed (a queue TimeoutError reads as ky's by its name)
  if (refusalOf(error) !== undefined) return error;
  const { isHTTPError, isNetworkError, isTimeoutError } = kyLoaded();
  const label = labelOf(options);
  const { attempts } = options.trace;
  if (isHTTPError(error)) {
    const { response } = error;
    return answeredError(
      (errors) => errors.statusError(response, text, options),
      () => statusErrorOf(response.status, `${response.status} from ${label}`, { request: label, attempts }),
    );
  }
  if (error instanceof BodyTooLarge) {
    const { status, limitBytes } = error;
    return answeredError(
      (errors) => errors.tooLarge(error, options),
      () => new ResponseTooLargeError(`${status} from ${label}: the response body is larger than maxResponseBytes (${limitBytes} bytes)`, { status, request: label, limitBytes, attempts }),
    );
  }
  if (error instanceof FollowedRedirect) {
    return new ApiError(
      `${label} was redirected, which the client never follows: the custom fetch must honour redirect: 'manual'`,
      { request: label, attempts },
    );
  }
  if (isTimeoutError(error)) {
    if (load.timedOutWaiting(error.request)) {
      return refused(
        new TimeoutError(
          `${label} timed out waiting for its turn and was not sent: the client's rateLimit (concurrency, requestsPerSecond) or a Retry-After pause held it for timeoutMs (${timeoutMs} ms)`,
          { request: label, attempts },
        ),
        'checkout.queue_timeout',
      );
    }
    // the wait for a turn counts in the attempt's timeoutMs: say so, or a queue reads as a slow service
    const waited = waitedMs >= 1 ? `, ${Math.round(waitedMs)} ms of which it waited for its turn (rateLimit, a Retry-After pause)` : '';
    return new TimeoutError(`${label} timed out: no complete response (headers and body) within timeoutMs (${timeoutMs} ms)${waited}`, { request: label, attempts });
  }
  if (isNetworkError(error)) {
    const cause = error.cause;
    return new ConnectionError(`${label} failed: ${describeNetworkError(cause)}`, { request: label, cause, attempts });
  }
  if (error instanceof ApiError) return error;
  // an error ky does not know (a custom fetch's, or a Headers/Request TypeError): its name only
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

/** What ended an attempt without a complete response, by the name of the error it becomes. */
function attemptError(error: unknown, input: Request | URL | string, callSignal: AbortSignal | undefined): string {
  if (error instanceof BodyTooLarge) return 'ResponseTooLargeError';
  if (error instanceof FollowedRedirect) return 'ApiError';
  if (callSignal?.aborted) {
    const reason: unknown = callSignal.reason;
    return reason instanceof Error || reason instanceof DOMException ? reason.name : 'AbortError';
  }
  // ky's per-attempt timeout aborts the request's own signal
  if (input instanceof Request && input.signal.aborted) return 'TimeoutError';
  return 'ConnectionError';
}
