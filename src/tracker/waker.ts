/**
 * Wakes the claim loop from its wait between claims: a watch, a nudge, a finished turn, drain. A
 * wake that comes while the loop is not waiting (it is claiming) makes its next wait return at once,
 * so no wake is lost.
 */
export class Waker {
  /** Ends the wait in progress, when there is one. */
  #poke: (() => void) | undefined;
  /** A wake came while the loop was not waiting: the next wait is skipped. */
  #woken = false;

  /** Ends the loop's wait now, or skips its next one. */
  wake(): void {
    if (this.#poke === undefined) this.#woken = true;
    else this.#poke();
  }

  /** Waits `ms`, or until woken (at once when a wake came since the last wait). */
  idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.#woken) {
        this.#woken = false;
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        this.#poke = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#poke = done;
    });
  }
}
