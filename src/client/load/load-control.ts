import { RateLimitError } from '../../errors.js';
import { retryAfterMs } from '../../internal/retry-after.js';
import { AdaptiveRate } from './adaptive-rate.js';
import { Gate, PausedPastDeadline } from './gate.js';
import { notify, type LoadHooks } from './hooks.js';
import type { LoadSettings } from './options.js';
import { Pace } from './pace.js';
import { Pause } from './pause.js';
import { RetryBudget } from './retry-budget.js';

/** The request asking for a turn: `METHOD /path`, for the error of a call that cannot wait out a pause. */
export interface TurnRequest {
  readonly method: string;
  readonly path: string;
}

/**
 * The load control of one client (see API.md "Load control"): the gate every request passes
 * (concurrency, pace, `Retry-After` pause, adaptive rate) and the retry budget. The transport asks
 * for a turn before each attempt ({@link enter}), gives it back with what came of it ({@link leave}),
 * asks before each retry ({@link mayRetry}) and reports each success ({@link succeeded}).
 */
export class LoadControl {
  /** The observer given at construction (OpenTelemetry, tests); `{}` when none. */
  readonly hooks: LoadHooks;
  /** `undefined` with `retryBudget: false`. */
  readonly budget: RetryBudget | undefined;
  readonly #gate: Gate;
  readonly #pause = new Pause();
  readonly #rate: AdaptiveRate;
  /** Requests still waiting for their turn: a timeout that fires then is a queue timeout, not the service's. */
  readonly #waiting = new WeakSet<object>();

  constructor(settings: LoadSettings, hooks: LoadHooks = {}) {
    this.hooks = hooks;
    this.budget = settings.budget === undefined ? undefined : new RetryBudget(settings.budget, hooks);
    this.#rate = new AdaptiveRate(hooks);
    const pace = settings.requestsPerSecond === undefined ? undefined : new Pace(settings.requestsPerSecond);
    this.#gate = new Gate(settings.concurrency, pace, this.#rate, this.#pause);
  }

  /** Requests in flight and waiting, now. */
  get load(): { inFlight: number; queued: number } {
    return { inFlight: this.#gate.inFlight, queued: this.#gate.queued };
  }

  /**
   * Waits for the request's turn: `undefined` when it may start now, else a promise of the
   * milliseconds it waited. `signal` is the attempt's (the call's own, its deadline's and the
   * attempt's timeout); `deadline` the `performance.now()` past which it cannot wait. Rejects (or throws) with the signal's reason when it aborts, and with a
   * `RateLimitError` when a `Retry-After` pause ends after its deadline. `request` is the object a
   * timeout error will carry (ky's `Request`), to tell a queue timeout from the service's.
   */
  enter(
    request: unknown,
    signal: AbortSignal | undefined,
    deadline: number,
    turn: TurnRequest,
    trace: { readonly attempts: number },
  ): Promise<number> | undefined {
    let waiting: Promise<number> | undefined;
    try {
      waiting = this.#gate.acquire(signal, deadline);
    } catch (error) {
      throw this.#pausedError(error, turn, trace.attempts);
    }
    if (waiting === undefined) return undefined;
    const tracked = typeof request === 'object' && request !== null ? request : undefined;
    if (tracked !== undefined) this.#waiting.add(tracked);
    return waiting.then(
      (waitedMs) => {
        if (tracked !== undefined) this.#waiting.delete(tracked);
        notify(this.hooks, 'queued', { method: turn.method.toUpperCase(), path: turn.path, waitedMs });
        return waitedMs;
      },
      (error: unknown) => {
        throw this.#pausedError(error, turn, trace.attempts);
      },
    );
  }

  /**
   * Throws the `RateLimitError` a request would get at its turn when a `Retry-After` pause outlasts
   * `deadline`: a call checks before waiting on a token exchange, which could not be sent either.
   */
  throwIfPausedPast(deadline: number, turn: TurnRequest, attempts: number): void {
    const waitMs = this.#pause.until - performance.now();
    if (this.#pause.until > deadline) throw this.#pausedError(new PausedPastDeadline(waitMs), turn, attempts);
  }

  /** Whether `request` timed out (or aborted) while still waiting for its turn. */
  timedOutWaiting(request: unknown): boolean {
    return typeof request === 'object' && request !== null && this.#waiting.has(request);
  }

  /** Gives the turn back once the attempt ended, with its response (`undefined` when none came). */
  leave(response: Response | undefined, sentAt: number): void {
    if (response !== undefined) this.#observe(response, sentAt);
    this.#gate.release();
  }

  /**
   * Whether a retry may be sent, taking its cost from the budget (always yes without one).
   * `afterTimeout`: the failure was a timeout or a network error.
   */
  mayRetry(afterTimeout: boolean): boolean {
    return this.budget === undefined || this.budget.draw(afterTimeout);
  }

  /** A request succeeded (2xx): the budget gets 1 token back, or a retry's cost after a retry. */
  succeeded(afterRetry: boolean): void {
    this.budget?.succeeded(afterRetry);
  }

  #observe(response: Response, sentAt: number): void {
    const now = performance.now();
    if (response.status !== 429) {
      this.#rate.observe(false, sentAt, now);
      return;
    }
    const waitMs = retryAfterMs(response.headers);
    if (waitMs === undefined) {
      this.#rate.observe(true, sentAt, now);
      return;
    }
    if (waitMs > 0 && this.#pause.extend(waitMs, now)) {
      notify(this.hooks, 'paused', { pauseMs: this.#pause.until - now });
      this.#gate.paused();
    }
  }

  #pausedError(error: unknown, turn: TurnRequest, attempts: number): unknown {
    if (!(error instanceof PausedPastDeadline)) return error;
    const label = `${turn.method.toUpperCase()} ${turn.path}`;
    const seconds = Math.ceil(error.waitMs / 1000);
    return new RateLimitError(
      `${label} was not sent: the service asked this client to wait ${Math.ceil(error.waitMs)} ms (Retry-After on a 429), ` +
        "longer than this call's timeoutMs (or the client's timeoutMs) allows",
      { status: 429, headers: new Headers({ 'retry-after': String(seconds) }), request: label, attempts, retryAfterMs: error.waitMs },
    );
  }
}
