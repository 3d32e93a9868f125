import type { AuthenticationError } from '../errors.js';

export const FIRST_REFUSAL_WINDOW_MS = 1_000;
export const MAX_REFUSAL_WINDOW_MS = 30_000;

/** After a 401 from POST /auth/token, the credentials are tried again once per window, not at every call. */
export class RefusalBackoff {
  #error: AuthenticationError | undefined;
  #until = 0;
  #windowMs = 0;

  /** The refusal to fail with at once while its window lasts. */
  blocked(): AuthenticationError | undefined {
    return this.#error !== undefined && performance.now() < this.#until ? this.#error : undefined;
  }

  refused(error: AuthenticationError): void {
    this.#windowMs = this.#windowMs === 0 ? FIRST_REFUSAL_WINDOW_MS : Math.min(this.#windowMs * 2, MAX_REFUSAL_WINDOW_MS);
    this.#error = error;
    // up to a fifth off, so a fleet refused at once does not come back in step
    this.#until = performance.now() + this.#windowMs * (0.8 + 0.2 * Math.random());
  }

  /** An exchange succeeded, or `resetCredentials()`. */
  succeeded(): void {
    this.#error = undefined;
    this.#windowMs = 0;
    this.#until = 0;
  }
}
