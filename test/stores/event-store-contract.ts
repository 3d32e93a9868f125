import { CheckoutError } from 'checkout-partner-sdk';
import type { ClaimedLease, ClaimResult, EventStore } from 'checkout-partner-sdk/stores';
import { expect, it } from 'vitest';

/**
 * Two workers of a fleet on one store (two instances sharing a prefix or table; the same instance
 * twice for the memory store), and a way to let time pass on the store's clock: a manual clock for
 * the memory store, a real sleep for Redis and PostgreSQL (whose clocks are the servers').
 */
export interface EventStoreUnderTest {
  a: EventStore;
  b: EventStore;
  /** Lets at least `ms` milliseconds pass on the store's clock. */
  advance(ms: number): Promise<void>;
}

/**
 * A lease the suite waits out (Redis and PostgreSQL sleep for real, MEDIUM + 60 ms for the servers'
 * clock resolution). Not shorter: the steps between a claim and a check that it still holds must
 * fit in it on a loaded machine, and PostgreSQL bounds the claim's statement by it.
 */
const MEDIUM = 2_000;
/** A lease the suite never waits out. */
const LONG = 600_000;

/** The claim's lease, failing the test when the store did not answer a claim. */
function leaseOf(claim: ClaimResult): unknown {
  expect(claim).toMatchObject({ status: 'claimed' });
  const { lease } = claim as ClaimedLease;
  expect(lease).not.toBeUndefined();
  expect(lease).not.toBeNull();
  return lease;
}

async function claimed(store: EventStore, eventId: string, leaseMs = LONG): Promise<unknown> {
  return leaseOf(await store.claim(eventId, leaseMs));
}

const rejectionOf = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => {
      throw new Error('expected a rejection, the call resolved');
    },
    (error: unknown) => error,
  );

/**
 * The rules every EventStore keeps, run against each store (memory, Redis, PostgreSQL); the webhook
 * handler's exactly-once rests on them. `fresh()` gives a store with no events (a new prefix or table).
 */
export function eventStoreContract(fresh: () => EventStoreUnderTest | Promise<EventStoreUnderTest>): void {
  it('claims once with a lease, answers in-flight while leased (to the holder too), and done once completed', async () => {
    const { a, b } = await fresh();
    const lease = await claimed(a, 'e-1');
    expect(await b.claim('e-1', LONG)).toBe('in-flight');
    expect(await a.claim('e-1', LONG)).toBe('in-flight');
    await a.complete('e-1', lease);
    expect(await b.claim('e-1', LONG)).toBe('done');
    expect(await a.claim('e-1', LONG)).toBe('done');
    await expect(b.complete('e-1', lease)).resolves.toBeUndefined(); // done already: nothing lost
  });

  it('hands out a lease per claim: the lease of an earlier claim can no longer release the event', async () => {
    const { a, b } = await fresh();
    const first = await claimed(a, 'e-1');
    await a.release('e-1', first);
    const second = await claimed(b, 'e-1');
    await a.release('e-1', first);
    expect(await a.claim('e-1', LONG)).toBe('in-flight');
    await b.release('e-1', second);
    await claimed(a, 'e-1');
  });

  it('release lets a redelivery claim at once, and never un-does a done event', async () => {
    const { a, b } = await fresh();
    const lease = await claimed(a, 'e-1');
    await a.release('e-1', lease);
    const again = await claimed(b, 'e-1');
    expect(await a.claim('e-1', LONG)).toBe('in-flight');
    await b.complete('e-1', again);
    await b.release('e-1', again);
    await a.release('e-1', lease);
    expect(await a.claim('e-1', LONG)).toBe('done');
  });

  it('a lease that ran out can be claimed again; its late release and complete leave the new claim alone', async () => {
    const { a, b, advance } = await fresh();
    const old = await claimed(a, 'e-1', MEDIUM);
    expect(await b.claim('e-1', LONG)).toBe('in-flight');
    await advance(MEDIUM + 60);
    const current = await claimed(b, 'e-1');
    await a.release('e-1', old); // never throws: the handler releases on its failure paths
    expect(await a.claim('e-1', LONG)).toBe('in-flight');
    const error = await rejectionOf(a.complete('e-1', old));
    expect(error).toBeInstanceOf(CheckoutError);
    expect(await a.claim('e-1', LONG)).toBe('in-flight');
    await b.complete('e-1', current);
    expect(await a.claim('e-1', LONG)).toBe('done');
    await expect(a.complete('e-1', old)).resolves.toBeUndefined(); // done already: nothing lost
  });

  it('completes through a lease that ran out when nobody claimed the event since (the work was done)', async () => {
    const { a, b, advance } = await fresh();
    const lease = await claimed(a, 'e-1', MEDIUM);
    await advance(MEDIUM + 60);
    await a.complete('e-1', lease);
    expect(await b.claim('e-1', LONG)).toBe('done');
  });

  it('gives exactly one claim among concurrent claims of one event, and one per event among many', async () => {
    const { a, b } = await fresh();
    const race = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).claim('e-race', LONG)));
    expect(race.filter((result) => typeof result === 'object')).toHaveLength(1);
    expect(race.filter((result) => result === 'in-flight')).toHaveLength(29);
    const ids = Array.from({ length: 10 }, (_, i) => `many-${i}`);
    const results = await Promise.all(ids.flatMap((id) => [a.claim(id, LONG), b.claim(id, LONG), a.claim(id, LONG)]));
    for (let i = 0; i < ids.length; i += 1) {
      expect(results.slice(i * 3, i * 3 + 3).filter((result) => typeof result === 'object')).toHaveLength(1);
    }
  });

  it('takes ids of any characters and keeps them apart (long ids sharing a head, NUL, lone surrogates)', async () => {
    const { a, b } = await fresh();
    const head = 'x'.repeat(5_000);
    const ids = [
      'with space',
      'new\nline',
      '*?[glob]',
      '💳 pix',
      '\uD800',
      '\uDC00',
      '\uFFFD',
      'evt\u0000nul',
      `${head}-1`,
      `${head}-2`,
      'é'.repeat(100),
    ];
    const leases = [];
    for (const id of ids) leases.push(await claimed(a, id));
    for (const id of ids) expect(await b.claim(id, LONG)).toBe('in-flight');
    await a.complete(`${head}-1`, leases[ids.indexOf(`${head}-1`)]);
    expect(await b.claim(`${head}-1`, LONG)).toBe('done');
    expect(await b.claim(`${head}-2`, LONG)).toBe('in-flight');
    expect(await b.claim('\uFFFD', LONG)).toBe('in-flight');
  });

  it('refuses a lease it did not hand out with a TypeError, and leaves the claim alone', async () => {
    const { a } = await fresh();
    await claimed(a, 'e-1');
    for (const lease of [null, 42, 'not-a-lease', { lease: 1 }]) {
      expect(await rejectionOf(a.complete('e-1', lease))).toBeInstanceOf(TypeError);
      expect(await rejectionOf(a.release('e-1', lease))).toBeInstanceOf(TypeError);
    }
    expect(await a.claim('e-1', LONG)).toBe('in-flight');
  });

  // API.md's lease-less shape: complete(eventId) and release(eventId) settle whatever claim holds the event
  it('completes without a lease: the event is done, whoever held it or when nobody did', async () => {
    const { a, b } = await fresh();
    await claimed(a, 'e-1');
    await b.complete('e-1');
    expect(await a.claim('e-1', LONG)).toBe('done');
    expect(await b.claim('e-1', LONG)).toBe('done');
    await b.complete('e-2');
    expect(await a.claim('e-2', LONG)).toBe('done');
    await expect(a.complete('e-1')).resolves.toBeUndefined(); // done already: stays done
    expect(await b.claim('e-1', LONG)).toBe('done');
  });

  it('releases without a lease: the next claim is claimed at once, the old lease settles nothing', async () => {
    const { a, b } = await fresh();
    const old = await claimed(a, 'e-1');
    await b.release('e-1');
    const current = await claimed(b, 'e-1');
    await a.release('e-1', old); // the old lease no longer holds the event
    expect(await a.claim('e-1', LONG)).toBe('in-flight');
    await b.complete('e-1', current);
    expect(await a.claim('e-1', LONG)).toBe('done');
    await a.release('e-2'); // nothing claimed: nothing to do
    await claimed(a, 'e-2');
  });

  it('never un-does a done event by a release without a lease', async () => {
    const { a, b } = await fresh();
    const lease = await claimed(a, 'e-1');
    await a.complete('e-1', lease);
    await b.release('e-1');
    await a.release('e-1');
    expect(await b.claim('e-1', LONG)).toBe('done');
    await b.complete('e-2');
    await a.release('e-2');
    expect(await a.claim('e-2', LONG)).toBe('done');
  });

  it('refuses a bad event id or leaseMs with a TypeError', async () => {
    const { a } = await fresh();
    for (const eventId of ['', 42, undefined]) {
      expect(await rejectionOf(a.claim(eventId as never, LONG))).toBeInstanceOf(TypeError);
    }
    for (const leaseMs of [0, -5, Number.NaN, Infinity, '1000']) {
      expect(await rejectionOf(a.claim('e-1', leaseMs as never))).toBeInstanceOf(TypeError);
    }
    leaseOf(await a.claim('e-1', LONG)); // nothing was claimed by the refused calls
  });

  it('renews its own claim past the lease it was claimed for; a lease that lapsed and was claimed again renews nothing', async () => {
    const { a, b, advance } = await fresh();
    expect(typeof a.renew).toBe('function');
    const lease = leaseOf(await a.claim('r-1', MEDIUM));
    expect(await a.renew?.('r-1', lease, LONG)).toBe(true);
    await advance(MEDIUM + 60);
    expect(await b.claim('r-1', LONG)).toBe('in-flight'); // held past its first lease by the renewal
    await a.complete('r-1', lease);
    expect(await a.renew?.('r-1', lease, LONG)).toBe(false); // done: no claim to renew
    expect(await b.claim('r-1', LONG)).toBe('done');

    const old = leaseOf(await a.claim('r-2', MEDIUM));
    await advance(MEDIUM + 60);
    const next = await claimed(b, 'r-2');
    expect(await a.renew?.('r-2', old, LONG)).toBe(false);
    expect(await a.claim('r-2', LONG)).toBe('in-flight'); // the next claim holds, untouched
    await b.complete('r-2', next);
    expect(await a.renew?.('r-2', next, LONG)).toBe(false);
    expect(await rejectionOf(a.renew!('r-3', 'not-a-lease', LONG))).toBeInstanceOf(TypeError);
  });

  it('takes back a live claim made under the same owner, never one of another owner or of none', async () => {
    const { a, b } = await fresh();
    const first = leaseOf(await a.claim('o-1', LONG, { owner: 'worker-1' }));
    expect(await b.claim('o-1', LONG, { owner: 'worker-2' })).toBe('in-flight');
    expect(await b.claim('o-1', LONG)).toBe('in-flight');
    const again = leaseOf(await b.claim('o-1', LONG, { owner: 'worker-1' })); // worker-1, restarted
    await b.complete('o-1', again);
    expect(await a.claim('o-1', LONG, { owner: 'worker-1' })).toBe('done'); // done stays done, whoever asks
    await expect(a.complete('o-1', first)).resolves.toBeUndefined();

    await claimed(a, 'o-2');
    expect(await b.claim('o-2', LONG, { owner: 'worker-1' })).toBe('in-flight');
    for (const options of [{ owner: '' }, { owner: 7 }, null, 'worker-1']) {
      expect(await rejectionOf(a.claim('o-3', LONG, options as never))).toBeInstanceOf(TypeError);
    }
    leaseOf(await a.claim('o-3', LONG, { owner: 'worker-2' })); // nothing was claimed by the refused calls
  });

  it('tells the time left on the live claim of an event, 0 when none holds it', async () => {
    const { a, b } = await fresh();
    expect(typeof b.leaseLeftMs).toBe('function');
    const lease = leaseOf(await a.claim('t-1', 10_000));
    const left = await b.leaseLeftMs?.('t-1');
    expect(left).toBeGreaterThan(9_000);
    expect(left).toBeLessThanOrEqual(10_000);
    expect(await b.leaseLeftMs?.('t-0')).toBe(0); // never claimed
    await a.release('t-1', lease);
    expect(await b.leaseLeftMs?.('t-1')).toBe(0);
    await a.complete('t-2', leaseOf(await a.claim('t-2', LONG)));
    expect(await b.leaseLeftMs?.('t-2')).toBe(0);
  });
}
