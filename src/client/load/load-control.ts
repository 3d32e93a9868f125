import { QueueFullError, RateLimitError, TimeoutError } from '../../errors.js';
import { retryAfterMs } from '../../internal/retry-after.js';
import { AdaptiveRate } from './adaptive-rate.js';
import { Gate, PausedPastDeadline, QueueFull, QueueTimedOut } from './gate.js';
import { notify, type LoadHooks } from './hooks.js';
import type { LoadSettings } from './options.js';
import { Pace } from './pace.js';
import { Pause } from './pause.js';
import { refused } from './refusal.js';
import { RetryBudget } from './retry-budget.js';

/** The request asking for a turn, for its error's message. */
export interface TurnRequest {
  readonly method: string;
  readonly path: string;
}

/** One client's load control (docs/load-control.md): the gate every request passes and the retry budget. */
export class LoadControl {
  readonly hooks: LoadHooks;
  readonly budget: RetryBudget | undefined;
  readonly #gate: Gate;
  readonly #pause = new Pause();
  readonly #rate: AdaptiveRate;

  constructor(settings: LoadSettings, hooks: LoadHooks = {}) {
    this.hooks = hooks;
    this.budget = settings.budget === undefined ? undefined : new RetryBudget(settings.budget, hooks);
    this.#rate = new AdaptiveRate(hooks);
    const pace = settings.requestsPerSecond === undefined ? undefined : new Pace(settings.requestsPerSecond);
    this.#gate = new Gate(settings.concurrency, settings.maxQueue, pace, this.#rate, this.#pause);
  }

  /** The request's turn, or its refusal (`RateLimitError`, `QueueFullError`, `TimeoutError`). */
  enter(
    signal: AbortSignal | undefined,
    deadline: number,
    turn: TurnRequest,
    trace: { readonly attempts: number },
  ): Promise<number> | number {
    let waiting: Promise<number> | number;
    try {
      waiting = this.#gate.acquire(signal, deadline);
    } catch (error) {
      throw this.#refusal(error, turn, trace.attempts);
    }
    if (typeof waiting === 'number') return waiting;
    const since = performance.now();
    return waiting.then(
      (ticket) => {
        notify(this.hooks, 'queued', { method: turn.method.toUpperCase(), path: turn.path, waitedMs: performance.now() - since });
        return ticket;
      },
      (error: unknown) => {
        throw this.#refusal(error, turn, trace.attempts);
      },
    );
  }

  /** A ticket when the request may start now, nothing queued; else `undefined`. */
  tryEnter(): number | undefined {
    return this.#gate.tryAcquire();
  }

  /** Throws the `RateLimitError` a request would get at its turn when a `Retry-After` pause outlasts `deadline`. */
  throwIfPausedPast(deadline: number, turn: TurnRequest, attempts: number): void {
    const waitMs = this.#pause.until - performance.now();
    if (this.#pause.until > deadline) throw this.#refusal(new PausedPastDeadline(waitMs), turn, attempts);
  }

  /** Gives the turn back once the attempt ended, with its response when one came. */
  leave(response: Response | undefined, sentAt: number, ticket: number): void {
    if (response !== undefined) this.#observe(response, sentAt);
    this.#gate.release(ticket, performance.now());
  }

  /** Whether a retry may be sent, taking its cost from the budget. */
  mayRetry(afterTimeout: boolean): boolean {
    return this.budget === undefined || this.budget.draw(afterTimeout);
  }

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

  /** The typed error of a request the client refused to send; any other error as it is. */
  #refusal(error: unknown, turn: TurnRequest, attempts: number): unknown {
    const label = `${turn.method.toUpperCase()} ${turn.path}`;
    if (error instanceof QueueFull) {
      return refused(
        new QueueFullError(
          `${label} was not sent: ${error.maxQueue} requests of this client already wait for their turn (rateLimit.maxQueue); ` +
            'the service is slower than the calls arrive (or paused them with a Retry-After): shed load, or raise rateLimit.concurrency or maxQueue',
          { request: label, attempts, maxQueue: error.maxQueue },
        ),
        'checkout.queue_full',
      );
    }
    if (error instanceof QueueTimedOut) {
      return refused(
        new TimeoutError(
          `${label} timed out waiting for its turn and was not sent: it waited ${Math.round(error.waitedMs)} ms in the client's queue ` +
            '(rateLimit concurrency or requestsPerSecond, a Retry-After pause), and a request waits at most half of its attempt ' +
            "(the client's timeoutMs, or what is left of the call's own), so that once sent it has the rest",
          { request: label, attempts },
        ),
        'checkout.queue_timeout',
      );
    }
    if (!(error instanceof PausedPastDeadline)) return error;
    const seconds = Math.ceil(error.waitMs / 1000);
    return refused(
      new RateLimitError(
        `${label} was not sent: the service asked this client to wait ${Math.ceil(error.waitMs)} ms (Retry-After on a 429), ` +
          "longer than this call's timeoutMs (or the client's timeoutMs) allows",
        { status: 429, headers: new Headers({ 'retry-after': String(seconds) }), request: label, attempts, retryAfterMs: error.waitMs },
      ),
      'checkout.paused',
    );
  }
}
