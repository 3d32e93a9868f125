import { CheckoutClient, ServerError } from 'checkout-partner-sdk';
import { createFakeCheckout, type FakeServer } from 'checkout-partner-sdk/testing';
import { createStatusTracker, MemoryStatusStore, type StatusTracker } from 'checkout-partner-sdk/tracker';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';

// A tracker polling in the background shares the fake with the test's own calls: a fault meant for
// one order must reach that order's read, whatever the tracker reads meanwhile.
const PARTNER = { partnerId: 'p-1', partnerSecret: 's-1' };
const fake = createFakeCheckout({ partners: [PARTNER] });
let server: FakeServer;
let tracker: StatusTracker;

beforeEach(async () => {
  fake.reset();
  server = await fake.listen();
  fake.setOrder({ externalId: 'o-1', settlement: { status: 'Pending', tradeId: 't-1' } });
  fake.setOrder({ externalId: 'o-2', settlement: { status: 'Pending', tradeId: 't-2' } });
  tracker = createStatusTracker({
    client: new CheckoutClient({ baseUrl: server.url, ...PARTNER, maxRetries: 0 }),
    store: new MemoryStatusStore(),
    onChange: () => {},
    schedule: { fastIntervalMs: 20, jitter: 0 },
    claimIntervalMs: 10,
    logger: false,
  });
  await tracker.watchOrder('o-2');
  tracker.start();
});
afterEach(async () => {
  await tracker.drain({ timeoutMs: 5_000 });
  await server.close();
});

const readsOf = (externalId: string) => fake.requests.filter((r) => r.path.endsWith(`/orders/by-external-id/${externalId}`)).length;

describe('failNext aimed at a request', () => {
  it('a background tracker polling another order does not consume a fault aimed at one order', async () => {
    fake.failNext(2, 503, { only: { kind: 'order', externalId: 'o-1' } });
    // the tracker reads o-2 again and again meanwhile
    expect(await eventually(() => readsOf('o-2') >= 5)).toBe(true);
    expect(fake.pendingFaults).toBe(2);
    const mine = new CheckoutClient({ baseUrl: server.url, ...PARTNER, maxRetries: 1 });
    await expect(mine.getOrderByExternalId('o-1')).rejects.toBeInstanceOf(ServerError);
    expect(fake.pendingFaults).toBe(0);
    expect(fake.requests.filter((r) => r.status === 503).every((r) => r.path.endsWith('/o-1'))).toBe(true);
  });

  it("without a matcher, the same tracker takes the test's fault first (why `only` takes one)", async () => {
    expect(await eventually(() => readsOf('o-2') >= 2)).toBe(true);
    fake.failNext(1, 503, { only: 'business' });
    expect(await eventually(() => fake.pendingFaults === 0)).toBe(true);
    expect(fake.requests.find((r) => r.status === 503)?.path).toMatch(/\/o-2$/);
  });
});
