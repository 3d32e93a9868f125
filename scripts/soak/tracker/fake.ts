/**
 * The tracker soak's checkout service and payment provider (a child of run.ts), from the BUILT
 * testing kit: `createFakeCheckout().listen()` holding every planned record, changed at its planned
 * times (`playTimeline`), and a `createProviderSimulator` that announces each change to a random
 * tracker process, losing 20%, duplicating 20%, delaying up to 3 s (so reordering). Writes every
 * change it applied to SOAK_TRUTH (`<kind> <id> <status> <epoch ms>`). Prints `FAKE-URL <origin>`;
 * on SIGTERM prints `PROVIDER <stats json>` and `HOLDS <stats json>`, and exits.
 *
 * Each status is held until the fleet has handed it over (its `C` line is in SOAK_LOG, which this
 * process tails) and for at least MIN_HOLD_MS (3 fast poll intervals), whatever the plan says: so
 * every status of every timeline is one the tracker can observe (API.md promises "every distinct
 * status the tracker observes"; a status that changes again within one read interval while its
 * webhook is lost is never observed, by any design), and the checker can demand each one exactly
 * once. A status not handed within MAX_HOLD_MS of its planned end is let go anyway; the checker then counts it lost.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import pg from 'pg';
import { createFakeCheckout, createProviderSimulator, type ProviderSimulator } from 'checkout-partner-sdk/testing';
import { PARTNER_ID, PARTNER_SECRET, planRecord, random, requiredEnv } from './plan.js';

const records = Number(requiredEnv('SOAK_RECORDS'));
const seed = Number(requiredEnv('SOAK_SEED'));
const epoch = Number(requiredEnv('SOAK_EPOCH'));
const spreadMs = Number(requiredEnv('SOAK_SPREAD_MS'));
const urls = requiredEnv('SOAK_WEBHOOK_URLS').split(',');
const secret = requiredEnv('SOAK_WEBHOOK_SECRET');
const truth = openSync(requiredEnv('SOAK_TRUTH'), 'a');
/** The fleet's onChange log (`C <kind> <id> <status> …` lines), tailed to learn what was handed over. */
const changes = openSync(requiredEnv('SOAK_LOG'), 'a+');
/** The tracker's default fast interval is 2 s: a status lasts at least three of its reads. */
const MIN_HOLD_MS = 6_000;
/**
 * A status the fleet has not handed over by then is let go (the checker reports it lost). The fleet
 * runs over capacity on purpose: 2,000 records on a 2 s interval ask ~1,000 reads/s of a fake that
 * answers ~250/s on 2 cores, so a due read waits in the backlog; with a failed onChange's back-off,
 * the SIGKILLed process's leases and the store's restart on top, statuses were held up to ~30 s
 * (one CI run: 30.08 s). 60 s keeps the bound meaningful (a stuck record) without measuring the backlog.
 */
const MAX_HOLD_MS = 60_000;
const HOLD_CHECK_MS = 100;

const fake = createFakeCheckout({
  partners: [{ partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET }],
  tokenTtlSeconds: 3600,
  maxLoggedRequests: 10,
});
const pick = random(seed ^ 0x5eed);
const providers: ProviderSimulator[] = urls.map((url) =>
  createProviderSimulator({
    url,
    secret,
    loss: 0.2,
    duplicates: 0.2,
    maxDelayMs: 3_000,
    random: random(seed ^ url.length ^ Number(url.slice(-5).replace(/\D/g, ''))),
    // the provider retries for ~15 s: longer than a tracker process is down after its SIGKILL
    delivery: { maxAttempts: 10, retryDelayMs: 200, maxRetryDelayMs: 2_000, timeoutMs: 5_000 },
  }),
);
const line = (kind: string, id: string, status: string) => writeSync(truth, `${kind} ${id} ${status} ${Date.now()}\n`);

/** `<id> <status>` of every change handed over so far, read from SOAK_LOG. */
const handed = new Set<string>();
let logOffset = 0;
let logRest = '';
const readHanded = () => {
  const chunk = Buffer.alloc(1 << 20);
  for (let n = 0; n < 1_000; n++) {
    const read = readSync(changes, chunk, 0, chunk.length, logOffset);
    if (read === 0) break;
    logOffset += read;
    const text = logRest + chunk.toString('utf8', 0, read);
    const lines = text.split('\n');
    logRest = lines.pop() ?? '';
    for (const entry of lines) {
      const [tag, , id, status] = entry.split(' ');
      if (tag === 'C' && id !== undefined && status !== undefined) handed.add(`${id} ${status}`);
    }
  }
};
// PostgreSQL mode: handed over means committed. An onChange whose transaction then rolled back (the
// SIGKILL, the restart) wrote its log line but no effect row, and its change is handed over again
// later: the status must be held until its effect row exists, or the checker would count it lost.
const effectsUrl = process.env['SOAK_PG_URL'];
const effectsTable = process.env['SOAK_PG_EFFECTS'];
const effects =
  effectsUrl === undefined || effectsTable === undefined
    ? undefined
    : new pg.Pool({ connectionString: effectsUrl, max: 1, connectionTimeoutMillis: 2_000 });
effects?.on('error', () => undefined); // an idle connection ended by the restart: the next poll reconnects
let polling = false;
const readCommitted = async () => {
  if (polling || effects === undefined) return;
  polling = true;
  try {
    const { rows } = await effects.query<{ external_id: string; status: string | null }>(
      `SELECT external_id, status FROM "${effectsTable}"`,
    );
    for (const row of rows) handed.add(`${row.external_id} ${row.status}`);
  } catch {
    // PostgreSQL restarting: the next poll reads it
  } finally {
    polling = false;
  }
};
const tail = effects === undefined ? setInterval(readHanded, HOLD_CHECK_MS) : setInterval(() => void readCommitted(), 500);
const holds = { held: 0, maxHeldMs: 0, letGo: 0, longest: [] as string[] };
/** The statuses held longest (`<id> <status> <ms>`): run.ts tells their story from the fleet's trace. */
const longest: { what: string; ms: number }[] = [];
const noteHold = (id: string, status: string, ms: number) => {
  longest.push({ what: `${id} ${status}`, ms });
  longest.sort((a, b) => b.ms - a.ms);
  longest.length = Math.min(longest.length, 3);
};

const timers: ReturnType<typeof setTimeout>[] = [];
const at = (ms: number, work: () => void) => timers.push(setTimeout(work, Math.max(0, epoch + ms - Date.now())));
/** Runs `work` once `status` of `id` is handed over and held MIN_HOLD_MS since `since`, but not before epoch + `plannedMs`. */
const after = (id: string, status: string, since: number, plannedMs: number, work: () => void) => {
  const check = () => {
    const now = Date.now();
    const due = Math.max(epoch + plannedMs, since + MIN_HOLD_MS);
    if (now < due) {
      timers.push(setTimeout(check, due - now));
      return;
    }
    const seen = handed.has(`${id} ${status}`);
    if (!seen && now - due < MAX_HOLD_MS) {
      timers.push(setTimeout(check, HOLD_CHECK_MS));
      return;
    }
    if (!seen) holds.letGo += 1;
    if (now > due + HOLD_CHECK_MS) {
      holds.held += 1;
      holds.maxHeldMs = Math.max(holds.maxHeldMs, now - due);
      noteHold(id, status, now - due);
    }
    work();
  };
  at(plannedMs, check);
};
let eventIds = 0;
for (let i = 0; i < records; i++) {
  const plan = planRecord(i, seed, spreadMs);
  /** Applies change `k` (after the status before it was handed over), then schedules the next. */
  const apply = (k: number) => {
    const change = plan.changes[k]!;
    if (plan.kind === 'order') fake.updateOrder(plan.externalId, { settlement: { status: change.status } });
    else fake.updateWithdrawal(plan.externalId, { status: change.status });
    line(plan.kind, plan.externalId, change.status);
    if (change.event !== undefined) {
      const provider = providers[Math.floor(pick() * providers.length)]!;
      provider.send({ eventId: `e-${i}-${++eventIds}`, type: change.event.type, ...change.event.fields });
    }
    next(k + 1, change.status);
  };
  const next = (k: number, current: string, since = Date.now()) => {
    if (k < plan.changes.length) after(plan.externalId, current, since, plan.changes[k]!.atMs, () => apply(k));
  };
  const create = () => {
    if (plan.kind === 'order')
      fake.setOrder({
        externalId: plan.externalId,
        currency: plan.currency,
        settlement: { status: plan.initial, tradeId: plan.currency === 'BRZ' ? null : `t-${i}` },
      });
    else fake.setWithdrawal({ externalId: plan.externalId, status: plan.initial });
    line(plan.kind, plan.externalId, plan.initial);
    // the initial status counts from when the checkout opens (the tracker cannot read it before)
    next(0, plan.initial, Math.max(Date.now(), epoch + plan.watchAtMs));
  };
  if (plan.createdAtMs === 0) create();
  else at(plan.createdAtMs, create);
}

const server = await fake.listen({ host: '127.0.0.1' });
process.stdout.write(`FAKE-URL ${server.url}\n`);

const stop = () => {
  clearInterval(tail);
  for (const timer of timers) clearTimeout(timer);
  const stats = providers.map((provider) => provider.stats);
  const total = stats.reduce(
    (sum, s) => ({
      sent: sum.sent + s.sent,
      lost: sum.lost + s.lost,
      deliveries: sum.deliveries + s.deliveries,
      duplicated: sum.duplicated + s.duplicated,
      failed: sum.failed + s.failed,
    }),
    { sent: 0, lost: 0, deliveries: 0, duplicated: 0, failed: 0 },
  );
  process.stdout.write(`PROVIDER ${JSON.stringify(total)}\n`);
  holds.longest = longest.map(({ what, ms }) => `${what} ${ms}`);
  process.stdout.write(`HOLDS ${JSON.stringify(holds)}\n`);
  for (const provider of providers) provider.stop();
  closeSync(truth);
  closeSync(changes);
  void effects?.end();
  void server.close().finally(() => process.exit(0));
  setTimeout(() => process.exit(1), 3000).unref();
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
