// A preload that puts this process's wall clock CLOCK_SKEW_MS milliseconds off (a fleet member
// whose clock is ahead or behind): `node --import ./test/helpers/skewed-clock.mjs child.mjs` with
// CLOCK_SKEW_MS=300000 (or -300000) in the child's environment. It offsets `Date` only (Date.now(),
// `new Date()`, Date() as a function); performance.now() and timers stay true, as on a real host.
// CLOCK_SKEW_MS may be changed while the process runs through globalThis.__setClockSkew(ms)
// (a wall-clock step mid-lease).
const raw = process.env.CLOCK_SKEW_MS ?? '0';
let skew = Number(raw);
if (!Number.isFinite(skew)) throw new TypeError(`CLOCK_SKEW_MS must be a number of milliseconds, got ${JSON.stringify(raw)}`);

const RealDate = Date;
const realNow = RealDate.now.bind(RealDate);

class SkewedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(realNow() + skew);
    else super(...args);
  }

  static now() {
    return realNow() + skew;
  }
}

// Date() called as a function returns a string of the (skewed) current time
const DateFunction = new Proxy(SkewedDate, {
  apply: () => new SkewedDate().toString(),
});

globalThis.Date = DateFunction;
globalThis.__setClockSkew = (ms) => {
  if (!Number.isFinite(ms)) throw new TypeError(`clock skew must be a number of milliseconds, got ${String(ms)}`);
  skew = ms;
};
