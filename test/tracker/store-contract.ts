import { NUDGE_PRIORITY_MS, type StatusStore } from 'checkout-partner-sdk/tracker';
import { expect, it } from 'vitest';

/**
 * The rules every StatusStore keeps, run against each store (memory, Redis). `fresh()` gives a store
 * with no records (a new prefix). Times are explicit `now` values: no clock is involved.
 */
export function statusStoreContract(fresh: () => StatusStore | Promise<StatusStore>): void {
  const T = 1_700_000_000_000;
  const claim = (store: StatusStore, now: number, owner = 'a', limit = 10, leaseMs = 1_000) => store.claimDue({ now, limit, leaseMs, owner });

  it('finds due records through its index, earliest first, and leases each to one claimer', async () => {
    const store = await fresh();
    await store.watch('order', 'o-2', T + 5);
    await store.watch('order', 'o-1', T);
    await store.watch('withdrawal', 'w-1', T + 100);
    expect(await claim(store, T - 1)).toEqual([]);
    const first = await claim(store, T + 10);
    expect(first.map((r) => r.externalId)).toEqual(['o-1', 'o-2']);
    expect(first[0]).toMatchObject({ kind: 'order', watching: true, watchedAt: T, failures: 0 });
    expect(first[0]!.handled).toBeUndefined();
    // leased: nobody else gets them until the lease ends
    expect((await claim(store, T + 50, 'b')).map((r) => r.externalId)).toEqual([]);
    expect((await claim(store, T + 200, 'b')).map((r) => r.externalId)).toEqual(['w-1']);
    // the lease ran out (its claimer died): due again, to another claimer
    const again = await claim(store, T + 1_011, 'c');
    expect(again.map((r) => r.externalId).sort()).toEqual(['o-1', 'o-2']);
    // the first claimer's late commit cannot record anything
    expect(await store.commit(first[0]!.lease, 'Settled', { now: T + 1_020, failures: 0, next: { delayMs: 10 } })).toBe(false);
    expect((await store.get('order', 'o-1'))?.handled).toBeUndefined();
  });

  it('commit records the handled status under the lease and schedules the next read', async () => {
    const store = await fresh();
    await store.watch('order', 'o-1', T);
    const [record] = await claim(store, T);
    expect(await store.commit(record!.lease, 'Pending', { now: T + 10, failures: 0, next: { delayMs: 500 } })).toBe(true);
    expect((await store.get('order', 'o-1'))?.handled).toEqual({ status: 'Pending', at: T + 10 });
    expect(await claim(store, T + 509)).toEqual([]);
    const [next] = await claim(store, T + 510);
    expect(next?.handled?.status).toBe('Pending');
    // null is a status too ("none yet"), told apart from "never handled"
    expect(await store.commit(next!.lease, null, { now: T + 520, failures: 0, next: { delayMs: 500 } })).toBe(true);
    expect((await store.get('order', 'o-1'))?.handled).toEqual({ status: null, at: T + 520 });
  });

  it('ends the watch at a final status and keeps the handled status; watch again keeps it', async () => {
    const store = await fresh();
    await store.watch('order', 'o-1', T);
    const [record] = await claim(store, T);
    await store.commit(record!.lease, 'Settled', { now: T + 1, failures: 0, next: { end: 'final' } });
    expect(await store.get('order', 'o-1')).toMatchObject({ watching: false, handled: { status: 'Settled' } });
    expect(await claim(store, T + 10_000_000)).toEqual([]);
    await store.watch('order', 'o-1', T + 20);
    const [rewatched] = await claim(store, T + 20);
    expect(rewatched).toMatchObject({ watching: true, watchedAt: T + 20, handled: { status: 'Settled' } });
  });

  it('a nudge during a lease does not break it; the turn then ends due at once', async () => {
    const store = await fresh();
    await store.watch('order', 'o-1', T);
    const [record] = await claim(store, T);
    await store.nudge('order', 'o-1', { now: T + 5, event: { eventId: 'e-1', type: 'otc.trade.settled', tradeId: 't-1' } });
    expect(await claim(store, T + 6, 'b')).toEqual([]);
    // the read in hand predates the event: a long delay is overridden, the record is due now
    await store.reschedule(record!.lease, { now: T + 7, failures: 0, next: { delayMs: 60_000 } });
    const [again] = await claim(store, T + 7, 'b');
    expect(again).toMatchObject({ externalId: 'o-1', nudgedAt: T + 5, event: { eventId: 'e-1' } });
    // a change handled with no newer nudge clears the nudge
    await store.commit(again!.lease, 'Settled', { now: T + 8, failures: 0, next: { delayMs: 60_000 } });
    const state = await store.get('order', 'o-1');
    expect(state?.nudgedAt).toBeUndefined();
    expect(state?.event).toBeUndefined();
  });

  it('a nudged record is claimed ahead of a backlog of records merely due', async () => {
    const store = await fresh();
    for (let i = 0; i < 5; i += 1) await store.watch('order', `late-${i}`, T - 60_000 + i);
    await store.watch('order', 'nudged', T + 1_000);
    await store.nudge('order', 'nudged', { now: T });
    expect((await claim(store, T, 'a', 1)).map((r) => r.externalId)).toEqual(['nudged']);
  });

  it('commit with keepNudge keeps the nudge (the change the event announced is still to come)', async () => {
    const store = await fresh();
    await store.nudge('order', 'o-1', { now: T, event: { eventId: 'e-1', type: 'otc.trade.settled' } });
    const [record] = await claim(store, T);
    await store.commit(record!.lease, 'Pending', { now: T + 1, failures: 0, next: { delayMs: 10 }, keepNudge: true });
    expect(await store.get('order', 'o-1')).toMatchObject({ handled: { status: 'Pending' }, nudgedAt: T, event: { eventId: 'e-1' } });
  });

  it('a nudge watches a record that is not watched, and wakes one that is', async () => {
    const store = await fresh();
    await store.nudge('withdrawal', 'w-9', { now: T });
    expect((await claim(store, T)).map((r) => [r.kind, r.externalId, r.watching])).toEqual([['withdrawal', 'w-9', true]]);
    await store.watch('order', 'o-1', T);
    const [record] = await claim(store, T);
    await store.reschedule(record!.lease, { now: T, failures: 2, next: { delayMs: 100_000 } });
    expect((await store.get('order', 'o-1'))?.failures).toBe(2);
    await store.nudge('order', 'o-1', { now: T + 1 });
    expect((await claim(store, T + 1)).map((r) => r.externalId)).toEqual(['o-1']);
  });

  it('unwatch, release and extend act as their names say', async () => {
    const store = await fresh();
    await store.watch('order', 'o-1', T);
    await store.watch('order', 'o-2', T);
    await store.unwatch('order', 'o-1');
    const [record] = await claim(store, T);
    expect(record?.externalId).toBe('o-2');
    expect(await store.extend(record!.lease, { now: T + 900, leaseMs: 1_000 })).toBe(true);
    expect(await claim(store, T + 1_500, 'b')).toEqual([]);
    await store.release(record!.lease, T + 1_600);
    expect(await store.extend(record!.lease, { now: T + 1_600, leaseMs: 1_000 })).toBe(false);
    expect((await claim(store, T + 1_600, 'b')).map((r) => r.externalId)).toEqual(['o-2']);
    expect(await store.get('order', 'never')).toBeUndefined();
    await expect(store.watch('order', '', T)).rejects.toThrow(TypeError);
  });
}

/**
 * What a store gives the tracker's metrics, for the stores that implement it (both parts are
 * optional in the StatusStore contract): `dueAt` on each claimed record (`checkout.tracker.lag`)
 * and `countWatched()` (`checkout.tracker.watched`).
 */
export function statusStoreMetricsContract(fresh: () => StatusStore | Promise<StatusStore>): void {
  const T = 1_700_000_000_000;
  const claim = (store: StatusStore, now: number, owner = 'a') => store.claimDue({ now, limit: 10, leaseMs: 1_000, owner });

  it('hands each claimed record the time it was due (its schedule, a nudge, or a lapsed lease)', async () => {
    const store = await fresh();
    await store.watch('order', 'o-1', T);
    const [first] = await claim(store, T + 40);
    expect(first?.dueAt).toBe(T);
    await store.reschedule(first!.lease, { now: T + 50, failures: 0, next: { delayMs: 500 } });
    const [second] = await claim(store, T + 600);
    expect(second?.dueAt).toBe(T + 550);
    // the claimer died: due again when its lease lapses
    const [third] = await claim(store, T + 2_000, 'b');
    expect(third?.dueAt).toBe(T + 1_600);
    await store.release(third!.lease, T + 2_001);
    await store.nudge('order', 'o-1', { now: T + 3_000 });
    const [nudged] = await claim(store, T + 3_010);
    // nudged records are put ahead of the backlog (NUDGE_PRIORITY_MS before the nudge)
    expect(nudged?.dueAt).toBe(T + 3_000 - NUDGE_PRIORITY_MS);
    expect(nudged?.nudgedAt).toBe(T + 3_000);
  });

  it('countWatched counts the records watched now, not those whose watch ended', async () => {
    const store = await fresh();
    expect(await store.countWatched!()).toBe(0);
    await store.watch('order', 'o-1', T);
    await store.watch('order', 'o-1', T); // idempotent
    await store.watch('withdrawal', 'w-1', T);
    await store.nudge('order', 'o-2', { now: T });
    expect(await store.countWatched!()).toBe(3);
    await store.unwatch('order', 'o-2');
    expect(await store.countWatched!()).toBe(2);
    const [record] = await claim(store, T);
    // a claim (a live lease) does not change the count; a final status ends the watch
    expect(await store.countWatched!()).toBe(2);
    await store.commit(record!.lease, 'Settled', { now: T + 1, failures: 0, next: { end: 'final' } });
    expect(await store.countWatched!()).toBe(1);
    // the ended record's status is kept (retention) and is not counted; watching it again is
    expect((await store.get('order', record!.externalId))?.handled?.status).toBe('Settled');
    await store.watch(record!.kind, record!.externalId, T + 2);
    expect(await store.countWatched!()).toBe(2);
  });
}
