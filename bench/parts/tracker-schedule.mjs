// Part: the status tracker's schedule ("webhooks first, polling as the safety net"), simulated on a
// virtual clock: the real tracker and the real MemoryStatusStore, a fake reader whose reads return
// the simulated records, 48 minutes of checkouts in a few seconds. Measured per scenario:
// - reads of the service per status change (a change: a status the record takes after its watch began),
//   and per record of each type (its whole watch: the cost of one checkout);
// - lateness (from the change at the service to onChange) by kind of change: unannounced while the
//   checkout is open, announced with its webhook delivered (from the delivery), announced whose
//   webhook was lost, an abandoned checkout;
// - nothing lost (every status a record takes reaches onChange) or doubled (a status handed twice).
// Scenarios: webhooks flowing (90% of announced changes get their webhook 0-3 s later), no webhooks
// at all, and webhooks flowing with a 30 s outage of the service at minute 20.
import { installVirtualClock } from '../lib/virtual-clock.mjs';
import { flag, report } from '../lib/measure.mjs';

// the clock first: the SDK's modules are imported after it, so every timer they set is virtual
const clock = installVirtualClock(Date.UTC(2026, 0, 5, 9, 0, 0));
const { ServerError, NotFoundError } = await import('checkout-partner-sdk');
const { createStatusTracker, MemoryStatusStore } = await import('checkout-partner-sdk/tracker');

const ORDERS = Number(flag('orders', 600));
const WITHDRAWALS = Number(flag('withdrawals', 200));
const OPEN_FOR_MS = 10 * 60_000;
const RUN_MS = 48 * 60_000;
const OUTAGE_AT_MS = 20 * 60_000;
const OUTAGE_MS = 30_000;
const MIN = 60_000;

/** A seeded generator (mulberry32), so every scenario sees the same checkouts. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
};

/**
 * The checkouts: each record's open time and its timeline of statuses (ms after the run's start),
 * each change marked announced (an event names it) or not, and whether its webhook is delivered.
 */
function checkouts() {
  const rnd = random(42);
  const between = (lo, hi) => lo + rnd() * (hi - lo);
  const records = [];
  for (let i = 0; i < ORDERS; i++) {
    const openAt = rnd() * OPEN_FOR_MS;
    const mix = rnd();
    const id = `o-${i}`;
    const timeline = [{ at: openAt, status: 'Pending', tradeId: null }];
    let type;
    if (mix < 0.55) {
      type = 'crypto';
      const processingAt = openAt + between(10_000, 5 * MIN);
      const endAt = processingAt + between(20_000, 15 * MIN);
      timeline.push({ at: processingAt, status: 'Processing', tradeId: `t-${i}`, announced: false });
      timeline.push({ at: endAt, status: rnd() < 0.85 ? 'Settled' : 'Cancelled', tradeId: `t-${i}`, announced: true });
    } else if (mix < 0.85) {
      type = 'brz';
      timeline.push({ at: openAt + between(10_000, 10 * MIN), status: 'Settled', tradeId: null, announced: false });
    } else {
      type = 'abandoned';
      timeline.push({ at: openAt + 30 * MIN, status: 'Cancelled', tradeId: null, announced: false });
    }
    records.push({ kind: 'order', id, type, openAt, timeline });
  }
  for (let i = 0; i < WITHDRAWALS; i++) {
    const openAt = rnd() * OPEN_FOR_MS;
    const timeline = [
      { at: openAt, status: 'Processing' },
      { at: openAt + between(10_000, 15 * MIN), status: 'Completed', announced: true },
    ];
    records.push({ kind: 'withdrawal', id: `w-${i}`, type: 'withdrawal', openAt, timeline });
  }
  // whether each announced change's webhook is delivered, and when (0-3 s after the change)
  for (const record of records)
    for (const change of record.timeline) if (change.announced) change.webhookAfter = rnd() < 0.9 ? between(0, 3_000) : undefined;
  return records;
}

/** One scenario: `webhooks` delivered or not, an outage or not. Resolves its figures. */
async function scenario({ webhooks, outage }) {
  const records = checkouts();
  const byKey = new Map(records.map((r) => [`${r.kind}:${r.id}`, r]));
  const t0 = clock.now();
  const elapsed = () => clock.now() - t0;
  let reads = 0;
  const readsByType = {};
  const down = () => outage && elapsed() >= OUTAGE_AT_MS && elapsed() < OUTAGE_AT_MS + OUTAGE_MS;
  /** The record's status as the service has it now. */
  const current = (record) => {
    let shown;
    for (const change of record.timeline) if (change.at <= elapsed()) shown = change;
    return shown;
  };
  const read = async (kind, externalId) => {
    reads += 1;
    const type = byKey.get(`${kind}:${externalId}`)?.type;
    readsByType[type] = (readsByType[type] ?? 0) + 1;
    // a read takes a few milliseconds, as over a network
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (down()) throw new ServerError('Service Unavailable', { status: 503 });
    const record = byKey.get(`${kind}:${externalId}`);
    const shown = record && current(record);
    if (shown === undefined) throw new NotFoundError(`${kind} ${externalId} not found`, { status: 404 });
    return kind === 'order'
      ? { externalId, currency: record.type === 'brz' ? 'BRZ' : 'USDT', settlement: { status: shown.status, tradeId: shown.tradeId } }
      : { externalId, status: shown.status };
  };
  const handed = new Map();
  const tracker = createStatusTracker({
    client: {
      getOrderByExternalId: (id) => read('order', id),
      getWithdrawalByExternalId: (id) => read('withdrawal', id),
    },
    store: new MemoryStatusStore({ clock: () => clock.now() }),
    logger: false,
    onChange: (change) => {
      const key = `${change.kind}:${change.externalId}`;
      const list = handed.get(key) ?? [];
      list.push({ status: change.status, at: elapsed(), source: change.source });
      handed.set(key, list);
    },
  });
  tracker.start();
  for (const record of records) {
    setTimeout(() => void (record.kind === 'order' ? tracker.watchOrder(record.id) : tracker.watchWithdrawal(record.id)), record.openAt);
    if (!webhooks) continue;
    for (const change of record.timeline) {
      if (change.webhookAfter === undefined) continue;
      const type =
        record.kind === 'withdrawal' ? 'pix.withdrawal.settled' : change.status === 'Settled' ? 'otc.trade.settled' : 'otc.trade.cancelled';
      const event = { eventId: `e-${record.id}`, type, ...(record.kind === 'order' ? { tradeId: change.tradeId } : {}) };
      setTimeout(() => void tracker.nudge(record.kind, record.id, { event }), change.at + change.webhookAfter);
    }
  }
  let overdueAfterRecovery;
  if (outage) setTimeout(async () => (overdueAfterRecovery = (await tracker.health()).oldestOverdueMs), OUTAGE_AT_MS + OUTAGE_MS + 30_000);
  const realStart = clock.realNow();
  await clock.advance(RUN_MS);
  const health = await tracker.health();
  const drain = tracker.drain({ timeoutMs: 5_000 });
  await clock.advance(6_000);
  await drain;

  // the figures
  const late = { unannouncedOpen: [], afterWebhook: [], lostWebhook: [], abandoned: [], announced: [], afterRecovery: [] };
  let changes = 0;
  let lost = 0;
  let doubled = 0;
  for (const record of records) {
    const got = handed.get(`${record.kind}:${record.id}`) ?? [];
    const statuses = got.map((g) => g.status);
    if (new Set(statuses).size !== statuses.length) doubled += 1;
    for (const [index, change] of record.timeline.entries()) {
      const seen = got.find((g) => g.status === change.status);
      if (seen === undefined) {
        lost += 1;
        continue;
      }
      if (index === 0) continue; // the status at the watch: its first read, not a change
      changes += 1;
      const lateness = seen.at - change.at;
      if (outage && change.at >= OUTAGE_AT_MS && change.at < OUTAGE_AT_MS + OUTAGE_MS)
        late.afterRecovery.push(seen.at - (OUTAGE_AT_MS + OUTAGE_MS));
      if (record.type === 'abandoned') late.abandoned.push(lateness);
      else if (!change.announced) {
        if (change.at - record.openAt < OPEN_FOR_MS) late.unannouncedOpen.push(lateness);
      } else {
        late.announced.push(lateness);
        if (change.webhookAfter === undefined || !webhooks) late.lostWebhook.push(lateness);
        else late.afterWebhook.push(Math.max(0, seen.at - (change.at + change.webhookAfter)));
      }
    }
  }
  const s = (ms) => (ms === null ? null : Number((ms / 1000).toFixed(2)));
  return {
    reads,
    changes,
    readsPerChange: Number((reads / changes).toFixed(1)),
    // reads per record of each type, its whole watch (the cost of one checkout)
    readsPerRecord: Object.fromEntries(
      Object.entries(readsByType).map(([type, n]) => [type, Math.round(n / records.filter((r) => r.type === type).length)]),
    ),
    lateSeconds: {
      unannouncedOpenP99: s(quantile(late.unannouncedOpen, 0.99)),
      afterWebhookP99: webhooks ? s(quantile(late.afterWebhook, 0.99)) : null,
      lostWebhookP99: s(quantile(late.lostWebhook, 0.99)),
      abandonedP99: s(quantile(late.abandoned, 0.99)),
      announcedP50: s(quantile(late.announced, 0.5)),
      ...(outage ? { afterRecoveryP99: s(quantile(late.afterRecovery, 0.99)), changesDuringOutage: late.afterRecovery.length } : {}),
    },
    ...(outage ? { oldestOverdueSeconds30sAfterRecovery: s(overdueAfterRecovery) } : {}),
    foundFirstByRead: health.webhooks.foundFirstByRead,
    lost,
    doubled,
    realSeconds: Number(((clock.realNow() - realStart) / 1000).toFixed(1)),
  };
}

report({
  orders: ORDERS,
  withdrawals: WITHDRAWALS,
  simulatedMinutes: RUN_MS / MIN,
  flowing: await scenario({ webhooks: true, outage: false }),
  none: await scenario({ webhooks: false, outage: false }),
  outage: await scenario({ webhooks: true, outage: true }),
});
