// One attempt's life (AttemptRun): its turn at the gate, its abort, and how it ended (Outcome).
import type { LoadControl } from './load/load-control.js';

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
 * slot came to hold two or three sockets. Held a little, the next request finds the replacement
 * connected and uses it: sockets stay within `concurrency` plus a few. The hold leaves room for a
 * slower connection set-up; only aborted attempts pay it.
 */
const ABORT_SETTLE_MS = 100;

/** The reason an attempt ended when ky's timer aborted it (never the call's: that one ends with the call's reason). */
class AttemptTimedOut {}
export const TIMED_OUT = new AttemptTimedOut();

/** Thrown when a custom `fetch` followed a redirect despite `redirect: 'manual'`. */
export class FollowedRedirect extends Error {
  override readonly name = 'FollowedRedirect';
  constructor(readonly url: string) {
    super('the custom fetch followed a redirect');
  }
}

/** How an attempt ended: a response read to its end (`text`), or `error` (with the response, when its headers came). */
export type Outcome =
  { response: Response; text: string; error?: undefined } | { response: Response | undefined; text: undefined; error: unknown };

/**
 * The life of one attempt inside ky's `fetch`: `signal` is the request's (ky's timeout and the
 * call's signal). It ends (`end` gets its {@link Outcome}) when fetch and the body read settle, or
 * at once when the signal aborts. Its turn goes back once: when fetch settles (after `end` wrote
 * the log entry), {@link ABORT_SETTLE_MS} after that when it was aborted, or {@link ABORT_GRACE_MS}
 * after the abort when fetch never settles (a custom fetch that ignores the signal costs its call a
 * timeout, not the client one of its slots forever). Its own abort listener (`handleEvent`), for a
 * custom fetch only (`watch`): the runtime's fetch, and its body read, reject within a tick of the
 * abort, so its attempt ends when they settle, with the same outcome (no listener to add and remove
 * on every attempt).
 */
export class AttemptRun {
  /** The response, once its headers came. */
  response: Response | undefined;
  readonly #signal: AbortSignal;
  readonly #load: LoadControl;
  readonly #ticket: number;
  readonly #sentAt = performance.now();
  readonly #callSignal: AbortSignal | undefined;
  readonly #end: (outcome: Outcome) => unknown;
  #grace: ReturnType<typeof setTimeout> | undefined;
  #ended = false;
  #left = false;
  /** Whether the attempt listens for its abort (a custom fetch's); else the runtime's fetch rejects on it. */
  readonly #watched: boolean;

  constructor(
    load: LoadControl,
    ticket: number,
    signal: AbortSignal,
    callSignal: AbortSignal | undefined,
    onEnd: (outcome: Outcome) => unknown,
    watch: boolean,
  ) {
    this.#load = load;
    this.#ticket = ticket;
    this.#signal = signal;
    this.#callSignal = callSignal;
    this.#end = onEnd;
    this.#watched = watch;
    if (!watch) return;
    signal.addEventListener('abort', this, { once: true });
    if (signal.aborted) this.handleEvent();
  }

  /** Aborted: the attempt ends now, its turn goes back when fetch settles or after the grace period. */
  handleEvent(): void {
    if (this.#ended) return;
    this.#abortEnd();
    this.#grace = setTimeout(() => this.#leave(), ABORT_GRACE_MS);
  }

  /** The attempt's end by its abort: the call's reason when the call was aborted, else its timeout. */
  #abortEnd(): void {
    this.#ended = true;
    const callSignal = this.#callSignal;
    this.#end({ response: this.response, text: undefined, error: callSignal?.aborted === true ? callSignal.reason : TIMED_OUT });
  }

  /** fetch and the body read settled with `outcome`. */
  settled(outcome: Outcome): void {
    if (this.#watched) {
      this.#signal.removeEventListener('abort', this);
      clearTimeout(this.#grace);
    } else if (outcome.text === undefined && !this.#ended && this.#signal.aborted) {
      // the runtime's fetch (or its body read) rejected on the abort: the same end as the listener's
      this.#abortEnd();
    }
    if (this.#ended) {
      holdAfterAbort(() => this.#leave());
      return;
    }
    this.#ended = true;
    // the entry is written before the turn is given back
    this.#end(outcome);
    this.#leave();
  }

  #leave(): void {
    if (this.#left) return;
    this.#left = true;
    this.#load.leave(this.response, this.#sentAt, this.#ticket);
  }
}

/** Gives an aborted attempt's turn back after {@link ABORT_SETTLE_MS}, without keeping a process that is done alive. */
function holdAfterAbort(leave: () => void): void {
  const timer = setTimeout(leave, ABORT_SETTLE_MS);
  (timer as { unref?: () => void }).unref?.();
}
