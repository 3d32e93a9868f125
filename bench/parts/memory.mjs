// Part 4: MemoryEventStore's memory. Run with --expose-gc (the runner does).
// (a) bytes per entry: heapUsed after a full GC, before and after 100,000 events went through
//     claim() + complete() (what the handler does per delivery). Event ids are 36-character
//     UUIDs, flat strings as JSON.parse makes them from a delivery's body, made during the run so
//     their strings count (the store is what keeps them alive); the figure without them is also
//     given (ids made before the baseline).
// (b) flat heap: 1,000,000 events through a store with maxEntries 100,000; heapUsed after a full
//     GC every 100,000 events. Flat = the last sample within 5% of the first (the store full).
//     Bounded by --memory-seconds (run.mjs passes 25; 60 when run alone): if the store is too
//     slow to get through them all in that time, the part says how far it got.
import { randomUUID } from 'node:crypto';
import { MemoryEventStore } from 'checkout-partner-sdk/webhooks';
import { flag, report } from '../lib/measure.mjs';

if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc');
const gc = () => {
  globalThis.gc();
  globalThis.gc();
};
const heap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};
const LEASE_MS = 60_000;
const entries = Number(flag('entries', 100_000));
const total = Number(flag('events', 1_000_000));
const budgetMs = Number(flag('memory-seconds', 60)) * 1000;
/** A flat string, as JSON.parse makes from a body (randomUUID() returns a rope of many small strings). */
const eventId = () => JSON.parse(`"${randomUUID()}"`);
const idsOf = function* (count) {
  for (let i = 0; i < count; i++) yield eventId();
};

async function fill(store, ids) {
  for (const id of ids) {
    const claim = await store.claim(id, LEASE_MS);
    if (typeof claim !== 'object') throw new Error(`unexpected claim result for ${id}`);
    await store.complete(id, claim.lease);
  }
}

// (a) with the id strings counted
let store = new MemoryEventStore({ maxEntries: entries });
let before = heap();
let t = performance.now();
await fill(store, idsOf(entries));
const usPerEventFilling = ((performance.now() - t) * 1000) / entries;
const withIds = (heap() - before) / entries;
if (store.size !== entries) throw new Error(`store holds ${store.size}, expected ${entries}`);
store = undefined;

// (a') store overhead only: ids made (and kept) before the baseline
const ids = Array.from({ length: entries }, eventId);
store = new MemoryEventStore({ maxEntries: entries });
before = heap();
await fill(store, ids);
const withoutIds = (heap() - before) / entries;
store = undefined;
ids.length = 0;

// (b) 1,000,000 events through a store bounded at 100,000
store = new MemoryEventStore({ maxEntries: entries });
const samples = [];
let n = 0;
let fullUs = 0;
const t0 = performance.now();
while (n < total && performance.now() - t0 < budgetMs) {
  const batch = Math.min(10_000, total - n);
  t = performance.now();
  await fill(store, idsOf(batch));
  if (n >= entries) fullUs += (performance.now() - t) * 1000;
  n += batch;
  if (n % 100_000 === 0 || n === total) samples.push({ events: n, heapUsedMB: heap() / 2 ** 20, size: store.size });
}
if (samples.at(-1)?.events !== n) samples.push({ events: n, heapUsedMB: heap() / 2 ** 20, size: store.size });
const usPerEventFull = n > entries ? fullUs / (n - entries) : undefined;
const first = samples.find((s) => s.events >= entries) ?? samples[0];
const last = samples.at(-1);
const peak = Math.max(...samples.filter((s) => s.events >= first.events).map((s) => s.heapUsedMB));
report({
  entries,
  bytesPerEntry: withIds,
  bytesPerEntryWithoutIds: withoutIds,
  usPerEventFilling,
  usPerEventFull,
  flat: {
    events: n,
    completed: n === total,
    maxEntries: entries,
    sizeAtEnd: last.size,
    heapAtFullMB: first.heapUsedMB,
    heapAtEndMB: last.heapUsedMB,
    peakMB: peak,
    growthPercent: ((last.heapUsedMB - first.heapUsedMB) / first.heapUsedMB) * 100,
    flat: Math.abs(last.heapUsedMB - first.heapUsedMB) / first.heapUsedMB <= 0.05 && last.size === entries,
    samples,
  },
});
