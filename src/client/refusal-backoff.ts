import type { AuthenticationError } from '../errors.js';

/** The first back-off window after POST /auth/token refused the credentials, in ms. */
export const FIRST_REFUSAL_WINDOW_MS = 1_000;
/** The longest back-off window, in ms. */
export const MAX_REFUSAL_WINDOW_MS = 30_000;

/**
 * Remembers that the service refused the partner credentials (401 from POST /auth/token), so the
 * client tries them again once per window (about 1 s, doubling to about 30 s) instead of at every
 * call: a wrong secret at 50 calls/s must not become 50 exchanges (and secret-manager reads) a second.
 */
export class RefusalBackoff {
  #error: AuthenticationError | undefined;
  /** `performance.now()` (a monotonic clock) until which the refusal stands. */
  #until = 0;
  #windowMs = 0;

  /** The refusal to fail with at once, while its window lasts; `undefined` when an exchange may be tried. */
  blocked(): AuthenticationError | undefined {
    return this.#error !== undefined && performance.now() < this.#until ? this.#error : undefined;
  }

  /** The service refused the credentials: the next exchange waits one window longer than the last. */
  refused(error: AuthenticationError): void {
    this.#windowMs = this.#windowMs === 0 ? FIRST_REFUSAL_WINDOW_MS : Math.min(this.#windowMs * 2, MAX_REFUSAL_WINDOW_MS);
    this.#error = error;
    // up to a fifth off, so a fleet refused at once does not come back in step
    this.#until = performance.now() + this.#windowMs * (0.8 + 0.2 * Math.random());
  }

  /**
   * An exchange succeeded, or the partner said the credentials changed (`resetCredentials()`): the
   * refusal no longer stands, and the next one starts again from the first window.
   */
  succeeded(): void {
    this.#error = undefined;
    this.#windowMs = 0;
    this.#until = 0;
  }
}
