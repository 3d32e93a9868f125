/**
 * This process's wall clock stepped by `step(ms)` (an NTP step, or a host whose clock is off): `Date`
 * only (`Date.now()`, `new Date()`), as on a real host; performance.now() and timers stay true.
 * `restore()` puts the real `Date` back. For a child process, preload test/helpers/skewed-clock.mjs.
 */
export function stepWallClock(): { step(ms: number): void; restore(): void } {
  const RealDate = Date;
  let skew = 0;
  class SteppedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + skew);
      else super(...(args as [string | number | Date]));
    }
    static override now(): number {
      return RealDate.now() + skew;
    }
  }
  globalThis.Date = SteppedDate as DateConstructor;
  return {
    step(ms: number) {
      skew += ms;
    },
    restore() {
      globalThis.Date = RealDate;
    },
  };
}
