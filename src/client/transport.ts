// Every request of a client goes through its one ky instance: ky retries, times each attempt
// (`timeout`) and the call (`totalTimeout`); the SDK adds the token, the turn at the client's gate,
// the body cap and the error tree.
import type { BeforeRequestState, KyInstance, Options as KyOptions } from 'ky';
import type { LoadControl } from './load/load-control.js';
import { attemptLog, type AttemptLog, type LogWriter } from './log.js';
import { readBody } from './read-body.js';
import { retryAfterMs } from '../internal/retry-after.js';
import { credentialValues, readyToRedact, redactShort } from './redact-short.js';
import { AttemptRun, FollowedRedirect, TIMED_OUT, type Outcome } from './attempt-run.js';
import { answeredError, attemptError, callTimeoutError, labelOf, ownDeadlineInQueue, parseBody, toCheckoutError } from './call-errors.js';
import type { SendOptions } from './send-options.js';
import { USER_AGENT } from './user-agent.js';
import { CheckoutError, ConnectionError, statusErrorOf } from '../errors.js';

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
/** A `Retry-After` longer than this fails the call at once (ky's `maxRetryAfter` would wait it out), so a misconfigured service cannot park a call for hours. */
const MAX_RETRY_AFTER_MS = 60_000;
/** Every method may retry: whether a call does is its own `retry.limit` (GETs, the token exchange, requests with an idempotency key). */
const ALL_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];
/** How close to its deadline a ky timeout is taken for the call's own (`totalTimeout`) rather than its attempt's. */
const DEADLINE_SLACK_MS = 2;

type Ky = typeof import('ky');
let kyModule: Ky | undefined;
let kyLoading: Promise<Ky> | undefined;

/**
 * ky, imported at the first request rather than with the SDK: at import ky builds a `Request` to
 * probe for request streams, which makes Node load its fetch implementation (tens of ms of every
 * cold start, also of processes that never send). A failed import is tried again at the next request.
 */
function loadKy(): Ky | Promise<Ky> {
  return (
    kyModule ??
    (kyLoading ??= import('ky').then(
      (module) => (kyModule = module),
      (error: unknown) => {
        kyLoading = undefined;
        throw error;
      },
    ))
  );
}

/**
 * The client's HTTP exchange with the partner API: one `ky.create()` instance per client. ky's
 * `retry` decides and times the retries (its `shouldRetry` is where the retry budget and a
 * `Retry-After` past the cap or the deadline say no), `timeout` bounds each attempt and
 * `totalTimeout` the call. Before the first attempt the call has its Bearer token and its first
 * turn at the client's gate: taken before ky starts when neither waits, else in a `beforeRequest`
 * hook of that call, bounded by `totalTimeout`. Every failure is mapped onto the error tree
 * (redacted: ky's `HTTPError` holds the request and its `Authorization` header). The custom `fetch`
 * does what ky does not: a retry's turn at the gate, the body read inside the attempt with its
 * cap, the redirect refusal.
 */
export class Transport {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly fetch: typeof globalThis.fetch | undefined;
  readonly maxRetries: number;
  readonly log: LogWriter;
  readonly load: LoadControl;
  readonly #apiBase: string;
  #ky: KyInstance | undefined;

  constructor(options: TransportOptions) {
    this.timeoutMs = options.timeoutMs;
    this.maxBytes = options.maxResponseBytes;
    this.fetch = options.fetch;
    this.maxRetries = options.maxRetries;
    this.log = options.log;
    this.load = options.load;
    this.#apiBase = options.apiBase;
  }

  /** Sends the request, retrying what is safe to retry, and resolves with its parsed 2xx body. */
  send<T>(options: SendOptions<T>): Promise<T> {
    if (kyModule !== undefined) return this.#send(kyModule, options);
    return Promise.resolve(loadKy()).then(
      (module) => this.#send(module, options),
      (error: unknown) => {
        throw kyUnavailable(options, error);
      },
    );
  }

  #send<T>(module: Ky, options: SendOptions<T>): Promise<T> {
    this.#ky ??= this.#create(module);
    return new Sending(this, module, this.#ky, options).run();
  }

  /** The client's one ky instance. */
  #create(module: Ky): KyInstance {
    const load = this.load;
    return module.default.create({
      prefix: this.#apiBase,
      timeout: this.timeoutMs,
      // the partner API has no redirects: one must never carry the credentials (or a body to trust) elsewhere
      redirect: 'manual',
      retry: {
        limit: this.maxRetries,
        methods: ALL_METHODS,
        statusCodes: RETRY_STATUSES,
        afterStatusCodes: RETRY_STATUSES,
        retryOnTimeout: true,
        jitter: true,
        shouldRetry: ({ error }) => shouldRetry(module, error, load),
      },
      // no hooks: ky merges an instance's hooks into every call and runs each one against a timer
    });
  }
}

/** The error of a call whose ky could not be imported (an app's chunk that cannot be fetched): nothing was sent. */
function kyUnavailable(options: SendOptions<unknown>, error: unknown): ConnectionError {
  const label = `${options.method.toUpperCase()} ${options.path}`;
  const name = error instanceof Error ? error.name : typeof error;
  return new ConnectionError(`${label} failed before any request was sent: ky could not be loaded (${name})`, {
    request: label,
    attempts: 0,
  });
}

/**
 * ky's `shouldRetry`: `false` where the SDK says no (a `Retry-After` past the cap or the call's
 * deadline, a retry budget run dry), `true` for a backoff without `Retry-After` (ky would read
 * other rate-limit headers; the partner API times retries by `Retry-After` alone), else ky decides.
 */
function shouldRetry({ isHTTPError, isNetworkError, isTimeoutError }: Ky, error: Error, load: LoadControl): boolean | undefined {
  if (isHTTPError(error)) {
    const { response } = error;
    if (!RETRY_STATUSES.includes(response.status)) return undefined;
    const wait = retryAfterMs(response.headers);
    const deadline = (error.options.context.sending as Sending<unknown> | undefined)?.deadline;
    if (wait !== undefined && (wait > MAX_RETRY_AFTER_MS || (deadline !== undefined && performance.now() + wait >= deadline))) return false;
    if (!load.mayRetry(false)) return false;
    return wait === undefined ? true : undefined;
  }
  if (isTimeoutError(error) || isNetworkError(error)) return load.mayRetry(true) ? undefined : false;
  return undefined;
}

/** One call's requests through {@link Transport.send}: its turns, attempts and outcome. */
class Sending<T> {
  readonly #t: Transport;
  readonly #k: Ky;
  readonly #ky: KyInstance;
  readonly #options: SendOptions<T>;
  readonly #log: AttemptLog | undefined;
  readonly #firstAttempt: number;
  /** `performance.now()` at which the call times out (ky's `totalTimeout` from now). */
  readonly deadline: number | undefined;
  /** The first attempt's turn, taken before ky starts or in `beforeRequest` (its wait is not part of its `timeoutMs`), until its fetch uses it. */
  #ticket: number | undefined;
  /** The token the request carries. */
  #token: string | undefined;
  /** What waiting for the token failed with: the call rejects with it as it is. */
  #tokenError: unknown;
  /** Whether a request of the call waits for its turn now: the call's deadline firing then is a queue timeout. */
  #queued = false;
  /** How long the current attempt waited for its turn (a retry's wait counts in its attempt's timeout). */
  #waitedMs = 0;
  /** The call settled: a turn granted after that goes back at once. */
  #done = false;
  /** Whether the call set headers of its own (a `User-Agent` among them, maybe). */
  readonly #ownHeaders: boolean;
  /** The headers each attempt's request gets in its fetch, when the call was ready before ky started ({@link #ready}). */
  #attemptHeaders: [string, string][] | undefined;
  /**
   * The last attempt's response read to its end, and its body (read inside the attempt's timeout,
   * capped): ky hands back that response. Kept on the call, not in a client-wide `WeakMap`: a
   * long-lived table of short-lived keys is work for every garbage collection.
   */
  #read: Response | undefined;
  #text = '';

  constructor(transport: Transport, module: Ky, ky: KyInstance, options: SendOptions<T>) {
    this.#t = transport;
    this.#k = module;
    this.#ky = ky;
    this.#options = options;
    this.deadline = options.deadline;
    const { log } = transport;
    this.#log =
      log === undefined ? undefined : attemptLog(log, options.method, options.path, (id) => redactShort(id, credentialValues(options)));
    this.#firstAttempt = options.trace.attempts;
    this.#ownHeaders = hasKeys(options.headers);
  }

  async run(): Promise<T> {
    const o = this.#options;
    try {
      const options = this.#kyOptions();
      if (!this.#ready()) options.hooks = { beforeRequest: [(state) => this.beforeRequest(state)] };
      const response = await this.#ky(o.path.replace(/^\/+/, ''), options);
      this.#t.load.succeeded(o.trace.attempts - this.#firstAttempt > 1);
      o.trace.response = response;
      return await parseBody(response, this.#bodyOf(response), o);
    } catch (error) {
      throw await this.#final(error);
    } finally {
      this.#done = true;
      this.#giveBackTicket();
    }
  }

  /**
   * The call's options for ky, only those that differ from the instance's: ky deep-merges each key
   * with the instance's defaults on every call, so a read passes its fetch, context and deadline alone.
   */
  #kyOptions(): KyOptions {
    const o = this.#options;
    const options: KyOptions = {
      totalTimeout: this.deadline === undefined ? false : Math.max(0, this.deadline - performance.now()),
      fetch: this.#fetch,
      context: { sending: this },
    };
    if (o.method !== 'get') options.method = o.method.toUpperCase();
    if (hasKeys(o.headers)) options.headers = o.headers;
    if (o.json !== undefined) options.json = o.json;
    if (o.searchParams !== undefined) options.searchParams = o.searchParams;
    if (o.signal !== undefined) options.signal = o.signal;
    const limit = o.retry ? (o.maxRetries ?? this.#t.maxRetries) : 0;
    if (limit !== this.#t.maxRetries) options.retry = { limit };
    return options;
  }

  /**
   * What {@link beforeRequest} does, done before ky starts when nothing of it would wait: the token
   * is cached and usable, and the gate has a turn free now. ky then runs no hook for the call (each
   * one a timer and a race against `totalTimeout`); else `false`, and the hook does it all.
   */
  #ready(): boolean {
    const o = this.#options;
    const token = o.authorize === undefined ? undefined : o.token?.();
    if (o.authorize !== undefined && token === undefined) return false;
    const ticket = this.#t.load.tryEnter();
    if (ticket === undefined) return false;
    // given back by run() if the call ends before an attempt uses it; a free turn means no
    // `Retry-After` pause either (the gate holds every turn back while one lasts)
    this.#ticket = ticket;
    this.#waitedMs = 0;
    if (token !== undefined) {
      this.#token = token;
      o.headers.authorization = `Bearer ${token}`;
    }
    o.inject?.(o.headers);
    this.#attemptHeaders = Object.entries(o.headers);
    return true;
  }

  /**
   * ky's `beforeRequest` for a call not {@link #ready} at once: a `Retry-After` pause that outlasts
   * the call fails it now (before it would wait on an exchange the pause holds back too), then the
   * Bearer token, then the first turn at the client's gate, taken before the attempt's `timeoutMs` starts.
   */
  async beforeRequest({ request, options }: BeforeRequestState): Promise<void> {
    const o = this.#options;
    const attemptEnd = performance.now() + this.#t.timeoutMs;
    const end = this.deadline === undefined ? attemptEnd : Math.min(this.deadline, attemptEnd);
    if (o.authorize !== undefined) {
      this.#t.load.throwIfPausedPast(end, o, o.trace.attempts);
      let token: string;
      try {
        token = await o.authorize(options.signal ?? undefined);
      } catch (error) {
        // the exchange's own error (typed already, or a partnerSecret function's TypeError): as it is
        this.#tokenError = error;
        throw error;
      }
      this.#token = token;
      o.headers.authorization = `Bearer ${token}`;
      request.headers.set('authorization', o.headers.authorization);
    }
    if (o.inject !== undefined) {
      o.inject(o.headers);
      for (const [name, value] of Object.entries(o.headers)) request.headers.set(name, value);
    }
    try {
      const ticket = await this.#turn(options.signal ?? o.signal, performance.now() + this.#t.timeoutMs);
      if (this.#done) {
        this.#t.load.leave(undefined, performance.now(), ticket);
        return;
      }
      this.#ticket = ticket;
      // its attempt starts once it has its turn: that wait is not part of its timeoutMs
      this.#waitedMs = 0;
    } catch (error) {
      const own = this.deadline !== undefined && this.deadline < attemptEnd && o.callTimeoutMs !== undefined;
      throw own ? ownDeadlineInQueue(error, o) : error;
    }
  }

  /** ky's `fetch`: one attempt, with its turn (a retry takes it here, inside its timeout), its body read to the end and capped. */
  readonly #fetch = async (input: Request | URL | string): Promise<Response> => {
    // ky hands its fetch the Request it made
    const request = input as Request;
    // on each attempt's own Request (ky clones the one it made before handing it to fetch), not as
    // the instance's `headers`: ky would merge those into a new Headers object on every call. The
    // SDK's User-Agent unless the call sets its own.
    if (!this.#ownHeaders || !request.headers.has('user-agent')) request.headers.set('user-agent', USER_AGENT);
    for (const [name, value] of this.#attemptHeaders ?? []) request.headers.set(name, value);
    const taken = this.#ticket;
    this.#ticket = undefined;
    const ticket = taken ?? (await this.#turn(request.signal, performance.now() + this.#t.timeoutMs));
    const { trace, signal } = this.#options;
    trace.attempts += 1;
    const attempt = trace.attempts;
    this.#log?.start(attempt);
    const run = new AttemptRun(
      this.#t.load,
      ticket,
      request.signal,
      signal,
      (outcome) => this.#logged(attempt, outcome),
      this.#t.fetch !== undefined,
    );
    try {
      // globalThis.fetch is looked up per request (msw and test doubles replace it) and called as a
      // method: browsers and Workers throw "Illegal invocation" for a detached fetch
      const response = await (this.#t.fetch === undefined ? globalThis.fetch(request) : this.#t.fetch(request));
      run.response = response;
      // its log entry quotes the request id, redacted exactly: the full redactor first, when it may hold a credential
      if (this.#log !== undefined) await readyToRedact(response.headers.get('x-request-id'), credentialValues(this.#options));
      if (response.redirected) throw new FollowedRedirect(response.url);
      const text = await readBody(response, this.#t.maxBytes, this.#t.fetch === undefined);
      this.#read = response;
      this.#text = text;
      run.settled({ response, text });
      return response;
    } catch (error) {
      run.settled({ response: run.response, text: undefined, error });
      throw error;
    }
  };

  /** The body the attempt that got `response` read; `''` when none did. */
  #bodyOf(response: Response): string {
    return response === this.#read ? this.#text : '';
  }

  /** Waits for a turn at the client's gate (concurrency, pace, a `Retry-After` pause) before `end`; resolves with its ticket. */
  async #turn(signal: AbortSignal | undefined, end: number): Promise<number> {
    const { deadline, trace } = this.#options;
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

  /** A first turn taken but never used by an attempt (ky gave up first): back to the gate. */
  #giveBackTicket(): void {
    const ticket = this.#ticket;
    if (ticket === undefined) return;
    this.#ticket = undefined;
    this.#t.load.leave(undefined, performance.now(), ticket);
  }

  /** Writes the attempt's `client.attempt` entry. */
  #logged(attempt: number, outcome: Outcome): void {
    const log = this.#log;
    if (log === undefined) return;
    const { response } = outcome;
    const failed = outcome.text === undefined ? attemptError(outcome.error, this.#options, this.#t.timeoutMs) : undefined;
    log.end(attempt, response, failed);
  }

  /**
   * What the call rejects with: the signal's reason when it was aborted, else the error tree's error
   * (an answered call's is made by a module imported at its first use, hence the promise).
   */
  async #final(error: unknown): Promise<unknown> {
    const o = this.#options;
    if (o.signal?.aborted === true) return o.signal.reason;
    if (error instanceof CheckoutError || error === this.#tokenError) return error;
    const { isHTTPError, isTimeoutError, isNetworkError } = this.#k;
    if (isHTTPError(error)) {
      const { response } = error;
      // a business call's 401 drops this token: the client mints one and sends once more
      if (response.status === 401 && this.#token !== undefined) o.trace.refusedToken = this.#token;
      const text = this.#bodyOf(response);
      return answeredError(
        (errors) => errors.statusError(response, text, o),
        () => statusErrorOf(response.status, `${response.status} from ${labelOf(o)}`, { request: labelOf(o), attempts: o.trace.attempts }),
      );
    }
    let cause: unknown = error;
    if (isTimeoutError(error)) {
      const deadline = this.deadline;
      if (deadline !== undefined && performance.now() >= deadline - DEADLINE_SLACK_MS) return callTimeoutError(o, this.#queued);
      cause = TIMED_OUT;
    } else if (isNetworkError(error)) cause = error.cause ?? error;
    return toCheckoutError(cause, o, this.#waitedMs, this.#t.timeoutMs);
  }
}

/** Whether `record` has a key of its own (without building the list of them). */
function hasKeys(record: Record<string, string>): boolean {
  for (const _ in record) return true;
  return false;
}
