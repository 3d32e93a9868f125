import ky, { isHTTPError, isNetworkError, isTimeoutError } from 'ky';
import type { Input, KyInstance, ShouldRetryState } from 'ky';
import { attemptLog, type AttemptLog } from './log.js';
import { readBody } from './read-body.js';
import { retryAfterMs } from '../internal/retry-after.js';
import { anySignal, untilAborted } from '../internal/abort.js';
import { callBound, type CallBound } from './call-bound.js';
import { credentialValues, redactShort } from './redact.js';
import { AttemptRun, FollowedRedirect, TIMED_OUT, type Outcome } from './attempt-run.js';
import { attemptError, callTimeoutError, ownDeadlineInQueue, parseBody, toCheckoutError } from './call-errors.js';
import { statusError } from './response-errors.js';
import type { SendOptions, TransportOptions } from './send-options.js';
import { USER_AGENT } from './user-agent.js';
import { CheckoutError } from '../errors.js';

const RETRY_STATUSES = [408, 429, 500, 502, 503, 504];
/** A longer `Retry-After` fails the call at once rather than parking it. */
const MAX_RETRY_AFTER_MS = 60_000;
/** Each call's retry policy; a call adds its `limit` (0 for a POST without an idempotency key), `shouldRetry` and `jitter`. */
const RETRY = {
  methods: ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'],
  statusCodes: RETRY_STATUSES,
  afterStatusCodes: RETRY_STATUSES,
  retryOnTimeout: true,
};

/**
 * The client's HTTP exchange with the partner API, through one ky instance. A call takes its token
 * and its first turn at the client's gate, then ky sends it, retries and times each attempt. The
 * call's deadline is the SDK's own timer, so a timeout is known to be the call's or the attempt's.
 */
export class Transport {
  readonly ky: KyInstance;

  constructor(readonly options: TransportOptions) {
    this.ky = ky.create({
      prefix: options.apiBase,
      headers: { 'user-agent': USER_AGENT },
      timeout: options.timeoutMs,
      // the partner API has no redirects: following one would carry the credentials elsewhere
      redirect: 'manual',
    });
  }

  send<T>(options: SendOptions<T>): Promise<T> {
    return new Call(this, options).run();
  }
}

class Call<T> {
  readonly #ky: KyInstance;
  readonly #t: TransportOptions;
  readonly #o: SendOptions<T>;
  /** The caller's signal and the call's deadline, made at the first wait the deadline bounds. */
  #bound: CallBound | undefined;
  readonly #log: AttemptLog | undefined;
  /** The first attempt's turn, taken before ky starts, until that attempt uses it. */
  #ticket: number | undefined;
  #token: string | undefined;
  /** Waiting for a turn: the deadline firing then is a queue timeout. */
  #inQueue = false;
  #waitedMs = 0;
  /** The response the last attempt read to its end, and its body: ky hands back that response. */
  #read: Response | undefined;
  #text = '';

  constructor(transport: Transport, options: SendOptions<T>) {
    this.#ky = transport.ky;
    this.#t = transport.options;
    this.#o = options;
    const { log } = this.#t;
    this.#log =
      log === undefined ? undefined : attemptLog(log, options.method, options.path, (id) => redactShort(id, credentialValues(options)));
  }

  async run(): Promise<T> {
    try {
      await this.#authorize();
      return await this.#send();
    } catch (error) {
      // the caller's abort and the call's deadline win over what they interrupted
      const signal = this.#callSignal();
      if (signal?.aborted) throw signal.reason;
      throw error;
    } finally {
      this.#bound?.dispose();
      if (this.#ticket !== undefined) this.#t.load.leave(undefined, performance.now(), this.#ticket);
    }
  }

  /** The Bearer token (none for the exchange itself); its errors reach the caller as they are. */
  async #authorize(): Promise<void> {
    const o = this.#o;
    if (o.authorize !== undefined) {
      this.#token = o.token?.();
      // a Retry-After pause that outlasts the call fails it before it waits on an exchange
      if (this.#token === undefined) this.#t.load.throwIfPausedPast(this.#turnDeadline(), o, o.trace.attempts);
      this.#token ??= await o.authorize(this.#signal());
      o.headers.authorization = `Bearer ${this.#token}`;
    }
    o.inject?.(o.headers);
  }

  async #send(): Promise<T> {
    const o = this.#o;
    const first = o.trace.attempts;
    try {
      const { deadline, callTimeoutMs } = o;
      const ownDeadline = callTimeoutMs !== undefined && deadline !== undefined && deadline < performance.now() + this.#t.timeoutMs;
      this.#ticket =
        this.#t.load.tryEnter() ??
        (await this.#turn(this.#signal()).catch((error: unknown) => {
          throw ownDeadline ? ownDeadlineInQueue(error, o) : error;
        }));
      const limit = o.retry ? (o.maxRetries ?? this.#t.maxRetries) : 0;
      const response = await this.#ky(o.path, {
        method: o.method.toUpperCase(),
        headers: o.headers,
        json: o.json,
        searchParams: o.searchParams,
        signal: o.signal ?? null,
        fetch: this.#fetch,
        retry: { ...RETRY, limit, shouldRetry: this.#shouldRetry, jitter: this.#jitter },
      });
      this.#t.load.succeeded(o.trace.attempts - first > 1);
      o.trace.response = response;
      return await parseBody(response, response === this.#read ? this.#text : '', o);
    } catch (error) {
      throw this.#error(error);
    }
  }

  #signal(): AbortSignal | undefined {
    const { deadline, signal } = this.#o;
    if (deadline === undefined) return signal;
    this.#bound ??= callBound(signal, Math.ceil(deadline - performance.now()), () => callTimeoutError(this.#o, this.#inQueue));
    return this.#bound.signal;
  }

  #callSignal(): AbortSignal | undefined {
    return this.#bound?.signal ?? this.#o.signal;
  }

  #turnDeadline(): number {
    const end = performance.now() + this.#t.timeoutMs;
    return this.#o.deadline === undefined ? end : Math.min(this.#o.deadline, end);
  }

  async #turn(signal: AbortSignal | undefined): Promise<number> {
    const turn = this.#t.load.enter(signal, this.#turnDeadline(), this.#o, this.#o.trace);
    if (typeof turn === 'number') return turn;
    const before = performance.now();
    this.#inQueue = true;
    const ticket = await turn;
    this.#inQueue = false;
    this.#waitedMs = performance.now() - before;
    this.#o.trace.queuedMs += this.#waitedMs;
    return ticket;
  }

  /**
   * ky's `shouldRetry`: no after an abort, past the retry budget, or for a `Retry-After` past the cap
   * or the deadline; `true` for a backoff without `Retry-After` (ky would read other rate limit
   * headers, which the partner API does not send); else ky decides.
   */
  readonly #shouldRetry = ({ error }: ShouldRetryState): boolean | undefined => {
    // a refusal unsent (its name may be ky's TimeoutError) is not retried
    if (this.#callSignal()?.aborted === true || error instanceof CheckoutError) return false;
    const { load } = this.#t;
    if (isTimeoutError(error) || isNetworkError(error)) return load.mayRetry(true) ? undefined : false;
    if (!isHTTPError(error) || !RETRY_STATUSES.includes(error.response.status)) return undefined;
    const wait = retryAfterMs(error.response.headers);
    const { deadline } = this.#o;
    if (wait !== undefined && (wait > MAX_RETRY_AFTER_MS || (deadline !== undefined && performance.now() + wait >= deadline))) return false;
    if (!load.mayRetry(false)) return false;
    return wait === undefined ? true : undefined;
  };

  /** ky's full jitter, ending the wait for a retry no later than the call's deadline. */
  readonly #jitter = (delay: number): number =>
    Math.min(Math.random() * delay, Math.max(0, (this.#o.deadline ?? Infinity) - performance.now()));

  /**
   * ky's `fetch`. ky bounds a call only by `totalTimeout`, whose `TimeoutError` is an attempt's too,
   * so the call's deadline is the SDK's own signal, linked into the attempts it may cut. A custom
   * fetch may ignore the signal, or lose it with a collected Request: the call's own signal ends it.
   */
  readonly #fetch = async (input: Input): Promise<Response> => {
    // ky calls its fetch with the Request it built
    let request = input as Request;
    const left = (this.#o.deadline ?? Infinity) - performance.now();
    if (left <= 0) throw callTimeoutError(this.#o, false);
    const bound = left < this.#t.timeoutMs ? this.#signal() : undefined;
    const link = bound && anySignal([request.signal, bound]);
    if (link !== undefined) request = new Request(request, { signal: link.signal });
    try {
      const attempt = this.#attempt(request);
      return await (this.#t.fetch === undefined ? attempt : untilAborted(untilAborted(attempt, request.signal), this.#callSignal()));
    } finally {
      link?.release();
    }
  };

  /**
   * One attempt. ky has no place for what it does besides fetch: a retry's turn at the gate (inside
   * the attempt's timeout), the body read to its end under `maxResponseBytes`, the redirect refusal.
   */
  async #attempt(request: Request): Promise<Response> {
    const { fetch, load } = this.#t;
    let ticket = this.#ticket;
    this.#ticket = undefined;
    this.#waitedMs = 0;
    ticket ??= await this.#turn(request.signal);
    const attempt = ++this.#o.trace.attempts;
    this.#log?.start(attempt);
    const run = new AttemptRun(load, ticket, request.signal, this.#callSignal(), (end) => this.#logged(attempt, end), fetch !== undefined);
    try {
      // globalThis.fetch is looked up per request (msw replaces it) and called as a method (Workers refuse a detached one)
      const response = await (fetch === undefined ? globalThis.fetch(request) : fetch(request));
      run.response = response;
      if (response.redirected) throw new FollowedRedirect(response.url);
      this.#text = await readBody(response, this.#t.maxResponseBytes, fetch === undefined);
      this.#read = response;
      run.settled({ response, text: this.#text });
      return response;
    } catch (error) {
      run.settled({ response: run.response, text: undefined, error });
      throw error;
    }
  }

  #logged(attempt: number, outcome: Outcome): void {
    const failed = outcome.text === undefined ? attemptError(outcome.error, this.#o, this.#t.timeoutMs) : undefined;
    this.#log?.end(attempt, outcome.response, failed);
  }

  /** The error tree's error, redacted: ky's `HTTPError` holds the request and its token. */
  #error(error: unknown): CheckoutError {
    if (error instanceof CheckoutError) return error;
    if (isHTTPError(error)) {
      const { response } = error;
      // a business call's 401 drops this token: the client mints one and sends once more
      if (response.status === 401 && this.#token !== undefined) this.#o.trace.refusedToken = this.#token;
      return statusError(response, response === this.#read ? this.#text : '', this.#o);
    }
    // the deadline is the SDK's own: a ky timeout is the attempt's
    const cause = isTimeoutError(error) ? TIMED_OUT : isNetworkError(error) ? (error.cause ?? error) : error;
    return toCheckoutError(cause, this.#o, this.#waitedMs, this.#t.timeoutMs);
  }
}
