/**
 * The tracker soak's plan, derived from the record's index and the seed alone, so every process
 * (the fake service, the trackers, the checker) agrees without sharing state: which records exist,
 * when each is watched, and when its status changes to what (and which provider event announces it).
 */

export const PARTNER_ID = 'tracker-soak-partner';
export const PARTNER_SECRET = 'tracker-soak-secret';
export const STATUS_PREFIX = 'tsoak:status:';
export const EVENT_PREFIX = 'tsoak:event:';

export interface PlannedChange {
  /** Milliseconds after the soak's epoch. */
  atMs: number;
  status: string;
  /** The provider event that announces it, if any (BRZ orders and some steps have none). */
  event?: { type: string; fields: Record<string, string> };
}

export interface PlannedRecord {
  kind: 'order' | 'withdrawal';
  externalId: string;
  currency?: string;
  initial: string;
  /** When the record exists at the service (before that, a read is a 404). */
  createdAtMs: number;
  /** When the checkout opens (the tracker starts watching it). */
  watchAtMs: number;
  changes: PlannedChange[];
}

/** A small seeded PRNG (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Record `index`'s plan: watched within the first `spreadMs`, its statuses moving over the next ~25 s. */
export function planRecord(index: number, seed: number, spreadMs: number): PlannedRecord {
  const next = random(seed * 7919 + index);
  const watchAtMs = Math.floor(next() * spreadMs);
  const dwell = () => 6_000 + Math.floor(next() * 8_000);
  if (index % 4 === 3) {
    const externalId = `w-${index}`;
    const completed = next() < 0.9;
    const final = completed ? 'Completed' : 'Failed';
    return {
      kind: 'withdrawal',
      externalId,
      initial: 'Processing',
      createdAtMs: 0,
      watchAtMs,
      changes: [
        {
          atMs: watchAtMs + dwell(),
          status: final,
          event: { type: completed ? 'pix.withdrawal.settled' : 'pix.withdrawal.failed', fields: { withdrawalExternalId: externalId } },
        },
      ],
    };
  }
  const externalId = `o-${index}`;
  const brz = index % 5 === 0;
  // one order in 20 is created a moment after its checkout opens: the first reads are 404s
  const createdAtMs = index % 20 === 1 ? watchAtMs + 1_500 : 0;
  const processingAt = Math.max(createdAtMs, watchAtMs) + dwell();
  const finalAt = processingAt + dwell();
  const cancelled = !brz && next() < 0.2;
  const tradeId = brz ? undefined : `t-${index}`;
  return {
    kind: 'order',
    externalId,
    currency: brz ? 'BRZ' : 'USDT',
    initial: 'Pending',
    createdAtMs,
    watchAtMs,
    changes: [
      // BRZ payments have no trade and no event: only polling sees them
      brz
        ? { atMs: processingAt, status: 'Processing' }
        : { atMs: processingAt, status: 'Processing', event: { type: 'pix.deposit.received', fields: { endUserId: externalId } } },
      brz
        ? { atMs: finalAt, status: 'Settled' }
        : {
            atMs: finalAt,
            status: cancelled ? 'Cancelled' : 'Settled',
            event: { type: cancelled ? 'otc.trade.cancelled' : 'otc.trade.settled', fields: { tradeId: tradeId! } },
          },
    ],
  };
}

/** The order externalId a trade event is about (`t-12` → `o-12`). */
export function orderForTrade(tradeId: unknown): string | undefined {
  return typeof tradeId === 'string' && tradeId.startsWith('t-') ? `o-${tradeId.slice(2)}` : undefined;
}

export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new TypeError(`${name} is required`);
  return value;
}
