import { NUDGE_PRIORITY_MS, type StatusStore } from 'checkout-partner-sdk/stores';
import { expect, it } from 'vitest';
import { KINDS } from '../helpers/kinds.js';

/**
 * A store under test and a way to let time pass on its clock: a manual clock for the memory store,
 * a real sleep for Redis and PostgreSQL (whose clocks are the servers'). The suite never passes a
 * time to the store and never compares a store time with the test's own clock: it reads times the
 * store hands back (`claimedAt`, `watchedAt`, `handled.at`, `nudgedAt`, `dueAt`) and compares them
 * with each other.
 */
export interface StoreUnderTest {
  store: StatusStore;
  /** Lets at least `ms` milliseconds pass on the store's clock. */
  advance(ms: number): Promise<void>;
}

/** A lease or delay the suite waits out (small: Redis and PostgreSQL sleep for real). */
const SHORT = 200;
/** Waiting out SHORT with room for the servers' clock resolution. */
const PAST_SHORT = SHORT + 60;
/** A delay that the steps between its start and a check that it has not passed must stay within, on a loaded machine too. */
const MEDIUM = 2_000;
/** A lease or delay the suite never waits out. */
const LONG = 600_000;

const claim = (store: StatusStore, owner = 'a', limit = 10, leaseMs = LONG) => store.claimDue({ limit, leaseMs, owner });
const ids = (records: { externalId: string }[]) => records.map((r) => r.externalId);

/**
 * The rules every StatusStore keeps, run against each store (memory, Redis, PostgreSQL). `fresh()`
 * gives a store with no records (a new prefix or table) and its clock.
 */
export function statusStoreContract(fresh: () => StoreUnderTest | Promise<StoreUnderTest>): void {
  it('records when the last event came (a nudge with an event), its age on its own clock; the note is no record', async () => {
    const { store, advance } = await fresh();
    expect(await store.lastEvent!()).toBeUndefined();
    await store.nudge('order', 'o-1', {});
    expect(await store.lastEvent!()).toBeUndefined();
    await store.nudge('withdrawal', 'w-1', { event: { eventId: 'e-1', type: 'pix.withdrawal.settled' } });
    const first = await store.lastEvent!();
    expect(first).toBeDefined();
    expect(first!.ageMs).toBeLessThan(LONG);
    await advance(PAST_SHORT);
    const later = await store.lastEvent!();
    expect(later!.at).toBe(first!.at);
    expect(later!.ageMs).toBeGreaterThanOrEqual(first!.ageMs + SHORT);
    // only the two nudged records are watched, due and claimed
    expect(await store.countWatched?.()).toBe(2);
    expect(ids(await claim(store)).sort()).toEqual(['o-1', 'w-1']);
  });

  it('keeps the kinds of the table apart: one externalId of each kind is a record of its own', async () => {
    const { store } = await fresh();
    for (const kind of KINDS) await store.watch(kind, 'x-1');
    expect(await store.countWatched?.()).toBe(KINDS.length);
    const claimed = await claim(store, 'a', KINDS.length + 1);
    expect(claimed.map((record) => [record.kind, record.externalId]).sort()).toEqual(KINDS.map((kind) => [kind, 'x-1']).sort());
    await store.unwatch(KINDS[0]!, 'x-1');
    for (const [index, kind] of KINDS.entries()) expect(await store.get(kind, 'x-1')).toMatchObject({ watching: index > 0 });
  });

  it('finds due records through its index, earliest first, and leases each to one claimer', async () => {
    const { store, advance } = await fresh();
    await store.watch('order', 'o-1');
    await advance(5);
    await store.watch('order', 'o-2');
    await advance(5);
    const first = await claim(store);
    expect(ids(first)).toEqual(['o-1', 'o-2']);
    expect(first[0]).toMatchObject({ kind: 'order', watching: true, failures: 0 });
    expect(first[0]!.handled).toBeUndefined();
    expect(first[0]!.watchedAt).toBeLessThan(first[1]!.watchedAt);
    // claimedAt is the store's clock at the claim: the times in the record are on it
    expect(first[0]!.claimedAt).toBeGreaterThanOrEqual(first[1]!.watchedAt + 5);
    // leased: nobody else gets them while the lease holds
    expect(await claim(store, 'b')).toEqual([]);
  });

  it('ages are differences of its own times: claimedAt - watchedAt counts the time that passed', async () => {
    const { store, advance } = await fresh();
    await store.watch('withdrawal', 'w-1');
    await advance(PAST_SHORT);
    const [record] = await claim(store);
    expect(record!.claimedAt - record!.watchedAt).toBeGreaterThanOrEqual(SHORT);
    expect(record!.claimedAt - record!.watchedAt).toBeLessThan(LONG);
  });

  it('a lease that ran out makes the record due again, for another claimer; the late commit records nothing', async () => {
    const { store, advance } = await fresh();
    await store.watch('order', 'o-1');
    const [first] = await claim(store, 'a', 10, SHORT);
    await advance(PAST_SHORT);
    const again = await claim(store, 'c');
    expect(ids(again)).toEqual(['o-1']);
    expect(again[0]!.claimedAt - first!.claimedAt).toBeGreaterThanOrEqual(SHORT);
    expect(await store.commit(first!.lease, 'Settled', { failures: 0, next: { delayMs: 10 } })).toBe(false);
    expect(await store.reschedule(first!.lease, { failures: 0, next: { delayMs: 10 } })).toBe(false);
    expect(await store.extend(first!.lease, { leaseMs: LONG })).toBe(false);
    expect((await store.get('order', 'o-1'))?.handled).toBeUndefined();
  });

  it('commit records the handled status under the lease and schedules the next read after delayMs', async () => {
    const { store, advance } = await fresh();
    await store.watch('order', 'o-1');
    const [record] = await claim(store);
    expect(await store.commit(record!.lease, 'Pending', { failures: 0, next: { delayMs: SHORT } })).toBe(true);
    const handled = (await store.get('order', 'o-1'))?.handled;
    expect(handled?.status).toBe('Pending');
    expect(handled!.at).toBeGreaterThanOrEqual(record!.claimedAt);
    await advance(PAST_SHORT);
    const [next] = await claim(store);
    expect(next?.handled?.status).toBe('Pending');
    expect(next!.claimedAt - handled!.at).toBeGreaterThanOrEqual(SHORT);
    // null is a status too ("none yet"), told apart from "never handled"
    expect(await store.commit(next!.lease, null, { failures: 0, next: { delayMs: LONG } })).toBe(true);
    expect((await store.get('order', 'o-1'))?.handled?.status).toBeNull();
    // not due before its delay
    expect(await claim(store)).toEqual([]);
  });

  it('handled.at grows with every commit of a record, even within one tick of its clock (each change.id differs)', async () => {
    const { store } = await fresh();
    await store.watch('order', 'o-1');
    let last = -Infinity;
    for (const status of ['Pending', 'Settled', 'Pending']) {
      const [record] = await claim(store);
      expect(await store.commit(record!.lease, status, { failures: 0, next: { delayMs: 0 } })).toBe(true);
      const at = (await store.get('order', 'o-1'))!.handled!.at;
      expect(at).toBeGreaterThan(last);
      last = at;
    }
  });

  it('ends the watch at a final status and keeps the handled status; watch again keeps it', async () => {
    const { store, advance } = await fresh();
    await store.watch('order', 'o-1');
    const [record] = await claim(store);
    await store.commit(record!.lease, 'Settled', { failures: 0, next: { end: 'final' } });
    expect(await store.get('order', 'o-1')).toMatchObject({ watching: false, handled: { status: 'Settled' } });
    expect(await claim(store)).toEqual([]);
    await advance(5);
    await store.watch('order', 'o-1');
    const [rewatched] = await claim(store);
    expect(rewatched).toMatchObject({ watching: true, handled: { status: 'Settled' } });
    expect(rewatched!.watchedAt).toBeGreaterThan(record!.watchedAt);
  });

  it("ends the watch as 'not-found' and as 'max-age' without a handled status", async () => {
    const { store } = await fresh();
    await store.watch('order', 'o-404');
    await store.watch('order', 'o-old');
    const records = await claim(store);
    const byId = new Map(records.map((r) => [r.externalId, r]));
    expect(await store.reschedule(byId.get('o-404')!.lease, { failures: 0, next: { end: 'not-found' } })).toBe(true);
    expect(await store.reschedule(byId.get('o-old')!.lease, { failures: 0, next: { end: 'max-age' } })).toBe(true);
    for (const id of ['o-404', 'o-old']) {
      const state = await store.get('order', id);
      expect(state?.watching).toBe(false);
      expect(state?.handled).toBeUndefined();
    }
    expect(await claim(store)).toEqual([]);
  });

  it('a nudge during a lease does not break it; the turn then ends due at once', async () => {
    const { store } = await fresh();
    await store.watch('order', 'o-1');
    const [record] = await claim(store);
    await store.nudge('order', 'o-1', { event: { eventId: 'e-1', type: 'otc.trade.settled', tradeId: 't-1' } });
    expect(await claim(store, 'b')).toEqual([]);
    // the read in hand predates the event: a long delay is overridden, the record is due now
    await store.reschedule(record!.lease, { failures: 0, next: { delayMs: LONG } });
    const [again] = await claim(store, 'b');
    expect(again).toMatchObject({ externalId: 'o-1', event: { eventId: 'e-1', tradeId: 't-1' } });
    expect(again!.nudgedAt).toBeGreaterThanOrEqual(record!.claimedAt);
    expect(again!.nudgedAt).toBeLessThanOrEqual(again!.claimedAt);
    // a change handled with no newer nudge clears the nudge
    await store.commit(again!.lease, 'Settled', { failures: 0, next: { delayMs: LONG } });
    const state = await store.get('order', 'o-1');
    expect(state?.nudgedAt).toBeUndefined();
    expect(state?.event).toBeUndefined();
  });

  it('a nudge after a failed turn keeps the back-off (the event is still remembered)', async () => {
    const { store, advance } = await fresh();
    await store.watch('order', 'o-1');
    const [record] = await claim(store);
    await store.reschedule(record!.lease, { failures: 1, next: { delayMs: MEDIUM } });
    await store.nudge('order', 'o-1', { event: { eventId: 'e-1', type: 'otc.trade.settled' } });
    expect(await claim(store)).toEqual([]);
    expect(await store.get('order', 'o-1')).toMatchObject({ watching: true, failures: 1, event: { eventId: 'e-1' } });
    await advance(MEDIUM + 60);
    const [due] = await claim(store);
    expect(due).toMatchObject({ externalId: 'o-1', failures: 1, event: { eventId: 'e-1' } });
    // a nudge during a lease whose turn fails: the turn's back-off holds too
    await store.nudge('order', 'o-1', { event: { eventId: 'e-2', type: 'otc.trade.settled' } });
    await store.reschedule(due!.lease, { failures: 2, next: { delayMs: LONG } });
    expect(await claim(store)).toEqual([]);
    expect(await store.get('order', 'o-1')).toMatchObject({ failures: 2, event: { eventId: 'e-2' } });
  });

  it('a nudged record is claimed ahead of a backlog of records merely due', async () => {
    const { store, advance } = await fresh();
    for (let i = 0; i < 5; i += 1) await store.watch('order', `late-${i}`);
    await advance(5);
    await store.watch('order', 'nudged');
    await store.nudge('order', 'nudged', {});
    expect(ids(await claim(store, 'a', 1))).toEqual(['nudged']);
  });

  it('commit with keepNudge keeps the nudge (the change the event announced is still to come)', async () => {
    const { store } = await fresh();
    await store.nudge('order', 'o-1', { event: { eventId: 'e-1', type: 'otc.trade.settled' } });
    const [record] = await claim(store);
    const nudgedAt = record!.nudgedAt;
    expect(nudgedAt).toBeTypeOf('number');
    await store.commit(record!.lease, 'Pending', { failures: 0, next: { delayMs: 10 }, keepNudge: true });
    expect(await store.get('order', 'o-1')).toMatchObject({ handled: { status: 'Pending' }, nudgedAt, event: { eventId: 'e-1' } });
  });

  it('a nudge watches a record that is not watched, and wakes one that is', async () => {
    const { store } = await fresh();
    await store.nudge('withdrawal', 'w-9', {});
    expect((await claim(store)).map((r) => [r.kind, r.externalId, r.watching])).toEqual([['withdrawal', 'w-9', true]]);
    await store.watch('order', 'o-1');
    const [record] = await claim(store);
    await store.reschedule(record!.lease, { failures: 0, next: { delayMs: LONG } });
    expect(await claim(store)).toEqual([]);
    await store.nudge('order', 'o-1', {});
    expect(ids(await claim(store))).toEqual(['o-1']);
  });

  it('unwatch, release and extend act as their names say', async () => {
    const { store, advance } = await fresh();
    await store.watch('order', 'o-1');
    await store.watch('order', 'o-2');
    await store.unwatch('order', 'o-1');
    const [record] = await claim(store, 'a', 10, MEDIUM);
    expect(record?.externalId).toBe('o-2');
    expect(await store.extend(record!.lease, { leaseMs: LONG })).toBe(true);
    await advance(MEDIUM + 60);
    expect(await claim(store, 'b')).toEqual([]);
    await store.release(record!.lease);
    expect(await store.extend(record!.lease, { leaseMs: LONG })).toBe(false);
    expect(ids(await claim(store, 'b'))).toEqual(['o-2']);
    expect(await store.get('order', 'never')).toBeUndefined();
    await expect(store.watch('order', '')).rejects.toThrow(TypeError);
  });

  it("reclaim(owner) ends only that owner's live leases, each record due at once, its nudge, event and failures kept", async () => {
    const { store, advance } = await fresh();
    for (const id of ['o-1', 'o-2', 'o-3', 'o-4', 'o-5']) {
      await store.watch('order', id);
      await advance(2);
    }
    // o-1 failed twice before this claim
    const [failed] = await claim(store, 'a', 1);
    await store.reschedule(failed!.lease, { failures: 2, next: { delayMs: 0 } });
    const held = await claim(store, 'a', 2);
    expect(ids(held)).toEqual(['o-2', 'o-3']);
    const [other] = await claim(store, 'b', 1);
    expect(other?.externalId).toBe('o-4');
    // a lease ended by its commit is not live: nothing to reclaim there
    const [done] = await claim(store, 'a', 1);
    expect(done?.externalId).toBe('o-5');
    await store.commit(done!.lease, 'Settled', { failures: 0, next: { delayMs: LONG } });
    const [o1] = await claim(store, 'a', 1);
    expect(o1).toMatchObject({ externalId: 'o-1', failures: 2 });
    held.push(o1!);
    await store.nudge('order', 'o-3', { event: { eventId: 'e-3', type: 'otc.trade.settled' } });

    expect(await store.reclaim('a')).toBe(3);
    const retaken = await claim(store, 'a2');
    expect(ids(retaken).sort()).toEqual(['o-1', 'o-2', 'o-3']);
    const byId = new Map(retaken.map((r) => [r.externalId, r]));
    expect(byId.get('o-1')).toMatchObject({ failures: 2 });
    expect(byId.get('o-3')).toMatchObject({ failures: 0, event: { eventId: 'e-3' } });
    expect(byId.get('o-3')!.nudgedAt).toBeTypeOf('number');
    // the old leases are gone: nothing they do counts
    for (const record of held) expect(await store.commit(record.lease, 'Settled', { failures: 0, next: { end: 'final' } })).toBe(false);
    // b's lease holds; a has nothing left to reclaim
    expect(await store.reclaim('a')).toBe(0);
    expect(await store.reclaim('nobody')).toBe(0);
    expect(await store.extend(other!.lease, { leaseMs: LONG })).toBe(true);
    expect(await store.reclaim('b')).toBe(1);
    expect(ids(await claim(store, 'b'))).toEqual(['o-4']);
    await expect(store.reclaim('')).rejects.toThrow(TypeError);
  });
}

/**
 * What a store gives the tracker's metrics, for the stores that implement it (these parts are
 * optional in the StatusStore contract): `dueAt` on each claimed record (`checkout.tracker.lag`),
 * `countWatched()` (`checkout.tracker.watched`) and `overdue()` (`checkout.tracker.overdue`,
 * `checkout.tracker.oldest_overdue`, `tracker.health()`).
 */
export function statusStoreMetricsContract(fresh: () => StoreUnderTest | Promise<StoreUnderTest>): void {
  it('hands each claimed record the time it was due (its schedule, a nudge, or a lapsed lease)', async () => {
    const { store, advance } = await fresh();
    await store.watch('order', 'o-1');
    await advance(5);
    const [first] = await claim(store);
    expect(first?.dueAt).toBe(first!.watchedAt);
    await store.reschedule(first!.lease, { failures: 0, next: { delayMs: SHORT } });
    await advance(PAST_SHORT);
    const [second] = await claim(store, 'a', 10, SHORT);
    expect(second!.dueAt).toBeGreaterThanOrEqual(first!.claimedAt + SHORT);
    expect(second!.dueAt).toBeLessThanOrEqual(second!.claimedAt);
    // the claimer died: due again when its lease lapses
    await advance(PAST_SHORT);
    const [third] = await claim(store, 'b');
    expect(third?.dueAt).toBe(second!.claimedAt + SHORT);
    await store.release(third!.lease);
    await store.nudge('order', 'o-1', {});
    const [nudged] = await claim(store);
    // nudged records are put ahead of the backlog (NUDGE_PRIORITY_MS before the nudge)
    expect(nudged?.dueAt).toBe(nudged!.nudgedAt! - NUDGE_PRIORITY_MS);
  });

  it('countWatched counts the records watched now, not those whose watch ended', async () => {
    const { store } = await fresh();
    expect(await store.countWatched!()).toBe(0);
    await store.watch('order', 'o-1');
    await store.watch('order', 'o-1'); // idempotent
    await store.watch('withdrawal', 'w-1');
    await store.nudge('order', 'o-2', {});
    expect(await store.countWatched!()).toBe(3);
    await store.unwatch('order', 'o-2');
    expect(await store.countWatched!()).toBe(2);
    const [record] = await claim(store, 'a', 1);
    // a claim (a live lease) does not change the count; a final status ends the watch
    expect(await store.countWatched!()).toBe(2);
    await store.commit(record!.lease, 'Settled', { failures: 0, next: { end: 'final' } });
    expect(await store.countWatched!()).toBe(1);
    // the ended record's status is kept (retention) and is not counted; watching it again is
    expect((await store.get(record!.kind, record!.externalId))?.handled?.status).toBe('Settled');
    await store.watch(record!.kind, record!.externalId);
    expect(await store.countWatched!()).toBe(2);
  });

  it('overdue counts the watched records not read successfully when their schedule said, and how late the oldest is', async () => {
    const { store, advance } = await fresh();
    const overdue = () => store.overdue!();
    expect(await overdue()).toEqual({ count: 0, oldestMs: 0 });
    // a watch owes a read at once; watching again keeps what is owed
    await store.watch('order', 'o-1');
    await advance(PAST_SHORT);
    await store.watch('order', 'o-2');
    await store.watch('order', 'o-1');
    await advance(5);
    let now = await overdue();
    expect(now.count).toBe(2);
    expect(now.oldestMs).toBeGreaterThanOrEqual(SHORT);
    expect(now.oldestMs).toBeLessThan(LONG);
    // a claim (a read in flight) changes nothing; a turn that met the schedule owes the next read after its delay
    const [one, two] = await claim(store);
    expect(ids([one!, two!])).toEqual(['o-1', 'o-2']);
    expect((await overdue()).count).toBe(2);
    await store.commit(one!.lease, 'Pending', { failures: 0, next: { delayMs: LONG } });
    // a failed turn, then a missed one (the service failed), leave the read owed since the watch
    await store.reschedule(two!.lease, { failures: 1, next: { delayMs: SHORT } });
    await advance(PAST_SHORT);
    const [again] = await claim(store);
    expect(again?.externalId).toBe('o-2');
    await store.reschedule(again!.lease, { failures: 0, next: { delayMs: SHORT }, missed: true });
    now = await overdue();
    expect(now.count).toBe(1);
    expect(now.oldestMs).toBeGreaterThanOrEqual(SHORT);
    // a nudge owes a read at once (o-1's next read was owed a long way off)
    await store.nudge('order', 'o-1', {});
    await advance(PAST_SHORT);
    now = await overdue();
    expect(now.count).toBe(2);
    expect(now.oldestMs).toBeGreaterThanOrEqual(2 * SHORT);
    // both read successfully: nothing is owed until o-2's short delay has passed
    const read = await claim(store);
    expect(ids(read).sort()).toEqual(['o-1', 'o-2']);
    for (const record of read)
      await store.commit(record.lease, 'Pending', { failures: 0, next: { delayMs: record.externalId === 'o-1' ? LONG : MEDIUM } });
    expect(await overdue()).toEqual({ count: 0, oldestMs: 0 });
    await advance(MEDIUM + 60);
    now = await overdue();
    expect(now.count).toBe(1);
    expect(now.oldestMs).toBeGreaterThan(0);
    // counted from its due time, not from its watch or its failed turns (more than MEDIUM + 3 × PAST_SHORT ago)
    expect(now.oldestMs).toBeLessThan(MEDIUM);
    // an ended watch owes nothing: unwatched, or ended by its turn (even a failed one)
    await store.unwatch('order', 'o-2');
    expect(await overdue()).toEqual({ count: 0, oldestMs: 0 });
    await store.watch('withdrawal', 'w-1');
    await advance(5);
    expect((await overdue()).count).toBe(1);
    const [ending] = await claim(store);
    expect(ending?.externalId).toBe('w-1');
    await store.reschedule(ending!.lease, { failures: 1, next: { end: 'max-age' } });
    expect(await overdue()).toEqual({ count: 0, oldestMs: 0 });
  });
}
