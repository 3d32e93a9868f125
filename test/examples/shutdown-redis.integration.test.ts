import { readFileSync } from 'node:fs';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { cleanup, countLines, heldService, PARTNER, ROOT, run, sigtermWithHungCallback, stopWithin, tsBlocks } from './shutdown-samples.js';

// docs/tracker.md's shutdown sample (examples/shutdown/tracker-redis.ts, shown verbatim) on a real
// redis-server: SIGTERM while the read of its withdrawal is held in flight exits 0 within 30 s, and
// the restart under the same HOSTNAME (its `owner`) hands the change over, once in all.

const SAMPLE = 'examples/shutdown/tracker-redis.ts';
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

describe('the tracker shutdown sample of docs/tracker.md (RedisStatusStore)', () => {
  it(`docs/tracker.md shows ${SAMPLE} verbatim`, () => {
    expect(tsBlocks('docs/tracker.md')).toContain(readFileSync(`${ROOT}${SAMPLE}`, 'utf8').trimEnd());
  });

  it('SIGTERM with a read in hand exits 0 within 30 s; the restart hands the change over once', { timeout: 90_000 }, async () => {
    const fake = createFakeCheckout({ partners: [PARTNER] });
    fake.setWithdrawal({ externalId: 'w-7', status: 'Processing' });
    const service = await heldService(fake, '/withdrawals/by-external-id/w-7');
    cleanup.push(() => void service.proxy.close());
    const env = {
      CHECKOUT_BASE_URL: service.url,
      CHECKOUT_PARTNER_ID: PARTNER.partnerId,
      CHECKOUT_PARTNER_SECRET: PARTNER.partnerSecret,
      REDIS_URL: redis.url,
      HOSTNAME: 'pod-1',
    };
    const first = run(SAMPLE, env);
    const handed = (status: string) => `withdrawal w-7 ${status}`;
    expect(await eventually(() => countLines(first, handed('Processing')) === 1, 20_000), first.err()).toBe(true);

    // the withdrawal completes; the read that would see it is held in flight when SIGTERM comes
    fake.updateWithdrawal('w-7', { status: 'Completed' });
    service.state.hold = true;
    const before = service.state.readsArrived;
    expect(await eventually(() => service.state.readsArrived > before, 10_000)).toBe(true);
    await stopWithin(first);

    // the rollout's next process (same HOSTNAME): it takes back the lease and reads the withdrawal now
    service.state.hold = false;
    const second = run(SAMPLE, env);
    const completed = () => countLines(first, handed('Completed')) + countLines(second, handed('Completed'));
    expect(await eventually(() => completed() >= 1 && countLines(second, 'w-7 final Completed') === 1, 20_000), second.err()).toBe(true);
    await stopWithin(second);
    expect(completed()).toBe(1);
    expect(countLines(first, handed('Processing')) + countLines(second, handed('Processing'))).toBe(1);
  });

  it('with an onChange that never ends: SIGTERM exits 0 within 30 s; the restart takes its lease back', { timeout: 90_000 }, () =>
    sigtermWithHungCallback({
      file: SAMPLE,
      fulfilled: 'withdrawal w-7 Processing',
      setup: (fake) => fake.setWithdrawal({ externalId: 'w-7', status: 'Processing' }),
      env: { REDIS_URL: redis.url },
    }),
  );
});
