import type { LoadControl } from './load/load-control.js';

/** How long an aborted attempt keeps its turn when a custom fetch ignores the signal and never settles. */
const ABORT_GRACE_MS = 1_000;
/**
 * How long an aborted attempt's slot is held after fetch settled: undici opens a replacement
 * connection for an aborted request (nodejs/undici#5845), and the next request should find it.
 */
const ABORT_SETTLE_MS = 100;

/** How an attempt ended when its own timer aborted it. */
class AttemptTimedOut {}
export const TIMED_OUT = new AttemptTimedOut();

/** A custom `fetch` followed a redirect despite `redirect: 'manual'`. */
export class FollowedRedirect extends Error {
  override readonly name = 'FollowedRedirect';
  constructor(readonly url: string) {
    super('the custom fetch followed a redirect');
  }
}

/** How an attempt ended: a response read to its end (`text`), or `error`. */
export type Outcome =
  { response: Response; text: string; error?: undefined } | { response: Response | undefined; text: undefined; error: unknown };

/** One attempt: it ends when fetch and the body read settle or `signal` or `callSignal` aborts (watched for a custom fetch only). */
export class AttemptRun {
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
    for (const watched of this.#watchedSignals()) watched.addEventListener('abort', this, { once: true });
    if (signal.aborted || callSignal?.aborted === true) this.handleEvent();
  }

  #watchedSignals(): AbortSignal[] {
    return this.#callSignal === undefined ? [this.#signal] : [this.#signal, this.#callSignal];
  }

  handleEvent(): void {
    for (const watched of this.#watchedSignals()) watched.removeEventListener('abort', this);
    if (this.#ended) return;
    this.#abortEnd();
    this.#grace = setTimeout(() => this.#leave(), ABORT_GRACE_MS);
  }

  #abortEnd(): void {
    this.#ended = true;
    const callSignal = this.#callSignal;
    this.#end({ response: this.response, text: undefined, error: callSignal?.aborted === true ? callSignal.reason : TIMED_OUT });
  }

  settled(outcome: Outcome): void {
    if (this.#watched) {
      for (const watched of this.#watchedSignals()) watched.removeEventListener('abort', this);
      clearTimeout(this.#grace);
    } else if (outcome.text === undefined && !this.#ended && this.#signal.aborted) {
      this.#abortEnd();
    }
    if (this.#ended) {
      holdAfterAbort(() => this.#leave());
      return;
    }
    this.#ended = true;
    this.#end(outcome);
    this.#leave();
  }

  #leave(): void {
    if (this.#left) return;
    this.#left = true;
    this.#load.leave(this.response, this.#sentAt, this.#ticket);
  }
}

/** Unref'd: a process that is done does not wait for it. */
function holdAfterAbort(leave: () => void): void {
  const timer = setTimeout(leave, ABORT_SETTLE_MS);
  (timer as { unref?: () => void }).unref?.();
}
