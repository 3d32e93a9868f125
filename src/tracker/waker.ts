/** Wakes the claim loop's wait; a wake while it is claiming skips its next wait, so no wake is lost. */
export class Waker {
  #poke: (() => void) | undefined;
  #woken = false;

  wake(): void {
    if (this.#poke === undefined) this.#woken = true;
    else this.#poke();
  }

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
