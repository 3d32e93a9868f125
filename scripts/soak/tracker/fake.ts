/**
 * The tracker soak's checkout service and payment provider (a child of run.ts), from the BUILT
 * testing kit: `createFakeCheckout().listen()` holding every planned record, changed at its planned
 * times (`playTimeline`), and a `createProviderSimulator` that announces each change to a random
 * tracker process, losing 20%, duplicating 20%, delaying up to 3 s (so reordering). Writes every
 * change it applied to SOAK_TRUTH (`<kind> <id> <status> <epoch ms>`). Prints `FAKE-URL <origin>`;
 * on SIGTERM prints `PROVIDER <stats json>` and exits.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { createFakeCheckout, createProviderSimulator, type ProviderSimulator } from 'checkout-partner-sdk/testing';
import { PARTNER_ID, PARTNER_SECRET, planRecord, random, requiredEnv } from './plan.js';

const records = Number(requiredEnv('SOAK_RECORDS'));
const seed = Number(requiredEnv('SOAK_SEED'));
const epoch = Number(requiredEnv('SOAK_EPOCH'));
const spreadMs = Number(requiredEnv('SOAK_SPREAD_MS'));
const urls = requiredEnv('SOAK_WEBHOOK_URLS').split(',');
const secret = requiredEnv('SOAK_WEBHOOK_SECRET');
const truth = openSync(requiredEnv('SOAK_TRUTH'), 'a');

const fake = createFakeCheckout({ partners: [{ partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET }], tokenTtlSeconds: 3600, maxLoggedRequests: 10 });
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

const timers: ReturnType<typeof setTimeout>[] = [];
const at = (ms: number, work: () => void) => timers.push(setTimeout(work, Math.max(0, epoch + ms - Date.now())));
let eventIds = 0;
for (let i = 0; i < records; i++) {
  const plan = planRecord(i, seed, spreadMs);
  const create = () => {
    if (plan.kind === 'order') fake.setOrder({ externalId: plan.externalId, currency: plan.currency, settlement: { status: plan.initial, tradeId: plan.currency === 'BRZ' ? null : `t-${i}` } });
    else fake.setWithdrawal({ externalId: plan.externalId, status: plan.initial });
    line(plan.kind, plan.externalId, plan.initial);
  };
  if (plan.createdAtMs === 0) create();
  else at(plan.createdAtMs, create);
  for (const change of plan.changes) {
    at(change.atMs, () => {
      if (plan.kind === 'order') fake.updateOrder(plan.externalId, { settlement: { status: change.status } });
      else fake.updateWithdrawal(plan.externalId, { status: change.status });
      line(plan.kind, plan.externalId, change.status);
      if (change.event !== undefined) {
        const provider = providers[Math.floor(pick() * providers.length)]!;
        provider.send({ eventId: `e-${i}-${++eventIds}`, type: change.event.type, ...change.event.fields });
      }
    });
  }
}

const server = await fake.listen({ host: '127.0.0.1' });
process.stdout.write(`FAKE-URL ${server.url}\n`);

const stop = () => {
  for (const timer of timers) clearTimeout(timer);
  const stats = providers.map((provider) => provider.stats);
  const total = stats.reduce(
    (sum, s) => ({ sent: sum.sent + s.sent, lost: sum.lost + s.lost, deliveries: sum.deliveries + s.deliveries, duplicated: sum.duplicated + s.duplicated, failed: sum.failed + s.failed }),
    { sent: 0, lost: 0, deliveries: 0, duplicated: 0, failed: 0 },
  );
  process.stdout.write(`PROVIDER ${JSON.stringify(total)}\n`);
  for (const provider of providers) provider.stop();
  closeSync(truth);
  void server.close().finally(() => process.exit(0));
  setTimeout(() => process.exit(1), 3000).unref();
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
