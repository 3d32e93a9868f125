// A clock the bench moves by hand: setTimeout, setInterval, Date.now and performance.now read it,
// so a simulation of hours runs in seconds. Install it before importing the code under test (some
// modules keep a reference to a timer function). Timers fire in due order; between two, every
// microtask and I/O callback the last one started runs (one real macrotask), so async code
// behaves as on a real clock whose time only moves when nothing else is left to do.

const realSetImmediate = globalThis.setImmediate;
const realDateNow = Date.now;

/** Installs the virtual clock at `startMs` (epoch milliseconds); returns its controls. */
export function installVirtualClock(startMs = Date.now()) {
  let now = startMs;
  let seq = 0;
  /** Pending timers: a binary heap by (at, seq). */
  const heap = [];
  const live = new Map();
  const less = (a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq);
  const push = (timer) => {
    heap.push(timer);
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!less(heap[i], heap[parent])) break;
      [heap[i], heap[parent]] = [heap[parent], heap[i]];
      i = parent;
    }
  };
  const pop = () => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && less(heap[l], heap[m])) m = l;
        if (r < heap.length && less(heap[r], heap[m])) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m], heap[i]];
        i = m;
      }
    }
    return top;
  };
  const schedule = (callback, ms, args, every) => {
    const timer = { id: ++seq, seq, at: now + Math.max(0, Number(ms) || 0), callback, args, every };
    live.set(timer.id, timer);
    push(timer);
    return handle(timer.id);
  };
  // a handle shaped like Node's Timeout (ref/unref/hasRef), usable as a number too
  const handle = (id) => ({
    id,
    ref() {
      return this;
    },
    unref() {
      return this;
    },
    hasRef: () => true,
    refresh() {
      return this;
    },
    [Symbol.toPrimitive]: () => id,
  });
  const clear = (timer) => {
    if (timer === undefined || timer === null) return;
    live.delete(typeof timer === 'object' ? timer.id : Number(timer));
  };
  globalThis.setTimeout = (callback, ms, ...args) => schedule(callback, ms, args, undefined);
  globalThis.clearTimeout = clear;
  globalThis.setInterval = (callback, ms, ...args) => schedule(callback, ms, args, Math.max(1, Number(ms) || 0));
  globalThis.clearInterval = clear;
  Date.now = () => Math.floor(now);
  Object.defineProperty(performance, 'now', { value: () => now - startMs, configurable: true, writable: true });
  const realTurn = () => new Promise((resolve) => realSetImmediate(resolve));

  return {
    /** The virtual time, epoch milliseconds. */
    now: () => now,
    /** Runs every timer due up to `now + ms`, in order, letting the async work each starts settle before the next. */
    async advance(ms) {
      const end = now + ms;
      await realTurn();
      for (;;) {
        while (heap.length > 0 && !live.has(heap[0].id)) pop();
        if (heap.length === 0 || heap[0].at > end) break;
        const timer = pop();
        now = Math.max(now, timer.at);
        if (timer.every === undefined) live.delete(timer.id);
        else {
          timer.at = now + timer.every;
          timer.seq = ++seq;
          push(timer);
        }
        timer.callback(...timer.args);
        await realTurn();
      }
      now = end;
      await realTurn();
    },
    /** Real milliseconds since the clock was installed (the simulation's own cost). */
    realNow: () => realDateNow(),
  };
}
