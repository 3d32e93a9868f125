// Owns its retry loop: turns, body reads and the retry budget are the client's; ky would decide each a second time.
import { statusErrorOf } from '../errors.js';
import type { LoadControl } from './load/load-control.js';
import { attemptLog, type AttemptLog, type LogWriter } from './log.js';
import { readBody } from './read-body.js';
import { LEADING_SLASHES } from '../internal/path.js';
import { retryAfterMs } from '../internal/retry-after.js';
import { credentialValues, redactorReady, redactShort } from './redact-short.js';
import { AttemptRun, FollowedRedirect, TIMED_OUT, type Outcome } from './attempt-run.js';
import { isNetworkError } from './network-error.js';
import { answeredError, attemptError, labelOf, ownDeadlineInQueue, parseBody, rejectWith, toCheckoutError } from './call-errors.js';
import type { SendOptions } from './send-options.js';

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

const RETRY_STATUSES = [408, 429, 500, 502, 503, 504];
/** A `Retry-After` longer than this fails the call at once, so a misconfigured service cannot park a call for hours. */
const MAX_RETRY_AFTER_MS = 60_000;
/** The first retry's backoff without `Retry-After`; each further one doubles it, and each is drawn at random below it (full jitter). */
const BACKOFF_MS = 300;

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
    this.#log =
      log === undefined ? undefined : attemptLog(log, options.method, options.path, (id) => redactShort(id, credentialValues(options)));
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
      if (wait !== undefined && (wait > MAX_RETRY_AFTER_MS || (deadline !== undefined && performance.now() + wait >= deadline)))
        return undefined;
      if (!load.mayRetry(false)) return undefined;
      return wait ?? this.#backoff();
    }
    if (outcome.error !== TIMED_OUT && !isNetworkError(outcome.error)) return undefined;
    return load.mayRetry(true) ? this.#backoff() : undefined;
  }

  /** Exponential backoff with full jitter: at random below 300 ms, 600 ms, 1.2 s… */
  #backoff(): number {
    return Math.random() * BACKOFF_MS * 2 ** this.#retries;
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
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
      init.headers = { ...headers, 'content-type': 'application/json' };
  }
  return init;
}
