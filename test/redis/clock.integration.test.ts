import { RedisEventStore, RedisTokenStore } from 'checkout-partner-sdk/redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { stepWallClock } from '../helpers/wall-clock.js';
import { flavours, type Connection } from './clients.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(() => server?.stop());

const HOUR = 3_600_000;
/** This process's wall clock, stepped by a test (an NTP step): `Date` only; timers and performance.now() stay true. */
let clock: ReturnType<typeof stepWallClock> | undefined;
afterEach(() => {
  clock?.restore();
  clock = undefined;
});

let prefixes = 0;

describe.each(flavours)('one clock for the event and token stores, with $name', (flavour) => {
  let connection: Connection;
  beforeAll(async () => {
    connection = await flavour.connect(server.url);
  });
  afterAll(() => connection?.close());

  it.each([
    ['forward', HOUR],
    ['back', -HOUR],
  ])('an event lease holds on the server clock when the wall clock steps %s 1 hour mid-lease', async (_, step) => {
    const prefix = `clock-event-${++prefixes}:`;
    const a = new RedisEventStore({ client: connection.client, prefix });
    const b = new RedisEventStore({ client: connection.client, prefix });
    const claim = await a.claim('e-1', 2_000);
    expect(claim).toMatchObject({ status: 'claimed' });
    clock = stepWallClock();
    clock.step(step);
    // another worker (same host, same stepped clock) cannot take the live lease
    expect(await b.claim('e-1', 2_000)).toBe('in-flight');
    // the holder completes under its lease
    await a.complete('e-1', (claim as { lease: unknown }).lease);
    expect(await b.claim('e-1', 2_000)).toBe('done');
    // a lease still ends after leaseMs of the server's time, not of the wall clock's
    // 2 s: the second claim must come within it, on a loaded machine too
    const second = await a.claim('e-2', 2_000);
    expect(second).toMatchObject({ status: 'claimed' });
    expect(await b.claim('e-2', 2_000)).toBe('in-flight');
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    expect(await b.claim('e-2', 2_000)).toMatchObject({ status: 'claimed' });
  });

  it.each([
    ['forward', HOUR],
    ['back', -HOUR],
  ])('the token exchange lock holds on the server clock when the wall clock steps %s 1 hour', async (_, step) => {
    const prefix = `clock-token-${++prefixes}:`;
    // 2 s: the second lock must come within it, on a loaded machine too
    const a = new RedisTokenStore({ client: connection.client, prefix, lockMs: 2_000 });
    const b = new RedisTokenStore({ client: connection.client, prefix, lockMs: 2_000 });
    const unlock = await a.lock('partner-a');
    expect(unlock).toBeTypeOf('function');
    clock = stepWallClock();
    clock.step(step);
    expect(await b.lock('partner-a')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    // expired by PX on the server's clock: another process may exchange now
    expect(await b.lock('partner-a')).toBeTypeOf('function');
    await unlock!(); // the expired holder's release leaves the new lock alone
    expect(await a.lock('partner-a')).toBeUndefined();
  });
  it.each([
    ['ahead', 5 * 60_000],
    ['behind', -5 * 60_000],
  ])("a reader whose clock is 5 minutes %s ends a shared token's reuse when its writer meant", async (_, step) => {
    const prefix = `clock-token-read-${++prefixes}:`;
    const writer = new RedisTokenStore({ client: connection.client, prefix });
    const reader = new RedisTokenStore({ client: connection.client, prefix });
    // the writer means: reuse for 10 minutes from now (its clock is true)
    await writer.set('partner-a', { accessToken: 'tok', expiresAt: Date.now() + 600_000 });
    clock = stepWallClock();
    clock.step(step);
    const read = await reader.get('partner-a');
    expect(read?.accessToken).toBe('tok');
    // on the reader's own clock, about 10 minutes are left: neither 5 nor 15
    const left = read!.expiresAt - Date.now();
    expect(left).toBeGreaterThan(590_000);
    expect(left).toBeLessThanOrEqual(600_000);
  });
});
