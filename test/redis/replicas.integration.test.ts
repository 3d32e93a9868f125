import { RedisEventStore, RedisStatusStore, RedisStoreError } from 'checkout-partner-sdk/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { flavours, type Connection } from './clients.js';

let master: RedisServer;
let replica: RedisServer;
beforeAll(async () => {
  master = await startRedis();
  replica = await startRedis({ args: ['--replicaof', '127.0.0.1', String(master.port)] });
});
afterAll(async () => {
  await replica?.stop();
  await master?.stop();
});

let prefixes = 0;

describe.each(flavours)('waitForReplicas with a real master and replica, with $name', (flavour) => {
  let primary: Connection;
  let copy: Connection;
  beforeAll(async () => {
    primary = await flavour.connect(master.url);
    copy = await flavour.connect(replica.url);
    const linked = await eventually(async () => String(await copy.raw('INFO', 'replication')).includes('master_link_status:up'), 20_000);
    expect(linked).toBe(true);
  });
  afterAll(async () => {
    await primary?.close();
    await copy?.close();
  });

  it('a commit counts once the replica acknowledged it: the replica holds the status when commit resolves', async () => {
    const prefix = `replicated-${++prefixes}:`;
    const store = new RedisStatusStore({ client: primary.client, prefix, waitForReplicas: { replicas: 1, timeoutMs: 2_000 } });
    for (let i = 0; i < 20; i += 1) await store.watch('order', `o-${i}`);
    const claimed = await store.claimDue({ limit: 20, leaseMs: 60_000, owner: 'a' });
    expect(claimed).toHaveLength(20);
    for (const record of claimed) {
      expect(await store.commit(record.lease, 'Settled', { failures: 0, next: { end: 'final' } })).toBe(true);
      // read on the replica at once, no wait: WAIT returned only after it had the write
      const onReplica = await copy.raw('HGET', `${prefix}r:order:${record.externalId}`, 'hs');
      expect(onReplica).toBe('"Settled"');
    }
  });

  it('fewer replicas than asked: commit rejects with RedisStoreError, the status stays recorded on the master', async () => {
    const store = new RedisStatusStore({
      client: primary.client,
      prefix: `short-${++prefixes}:`,
      waitForReplicas: { replicas: 2, timeoutMs: 100 },
    });
    await store.watch('order', 'o-1');
    const [record] = await store.claimDue({ limit: 1, leaseMs: 60_000, owner: 'a' });
    const error = await store.commit(record!.lease, 'Settled', { failures: 0, next: { end: 'final' } }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RedisStoreError);
    expect(error).toMatchObject({ operation: 'commit' });
    expect((error as Error).message).toContain('only 1 of the 2 replicas');
    expect((error as Error).message).toContain('not reported as recorded');
    // WAIT cannot undo a write: the master has it, and the tracker's next read finds it handled
    expect(await store.get('order', 'o-1')).toMatchObject({ watching: false, handled: { status: 'Settled' } });
    // the tracker retries a commit that failed: the same commit is found recorded and waits again
    await expect(store.commit(record!.lease, 'Settled', { failures: 0, next: { end: 'final' } })).rejects.toThrow(
      /only 1 of the 2 replicas/,
    );
    const satisfied = new RedisStatusStore({
      client: primary.client,
      prefix: store.prefix,
      waitForReplicas: { replicas: 1, timeoutMs: 2_000 },
    });
    expect(await satisfied.commit(record!.lease, 'Settled', { failures: 0, next: { end: 'final' } })).toBe(true);
    // another lease's commit is still refused
    expect(
      await satisfied.commit({ ...record!.lease, token: `${record!.lease.token}-other` }, 'Settled', {
        failures: 0,
        next: { end: 'final' },
      }),
    ).toBe(false);
    // a reschedule is no hand-over: it does not wait
    await store.watch('order', 'o-2');
    const [other] = await store.claimDue({ limit: 1, leaseMs: 60_000, owner: 'a' });
    expect(await store.reschedule(other!.lease, { failures: 0, next: { delayMs: 1_000 } })).toBe(true);
  });

  it('RedisEventStore: complete waits for the replica; with fewer it rejects and the event still reads done', async () => {
    const prefix = `events-${++prefixes}:`;
    const store = new RedisEventStore({ client: primary.client, prefix, waitForReplicas: { replicas: 1, timeoutMs: 2_000 } });
    const claim = await store.claim('e-1', 60_000);
    await store.complete('e-1', (claim as { lease: unknown }).lease);
    expect(await copy.raw('GET', `${prefix}e-1`)).toBe('done');

    const demanding = new RedisEventStore({ client: primary.client, prefix, waitForReplicas: { replicas: 3, timeoutMs: 100 } });
    const second = await demanding.claim('e-2', 60_000);
    const error = await demanding.complete('e-2', (second as { lease: unknown }).lease).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RedisStoreError);
    expect((error as Error).message).toContain('only 1 of the 3 replicas');
    // what the webhook handler's retry of complete then meets: done, and waiting again
    await expect(demanding.complete('e-2', (second as { lease: unknown }).lease)).rejects.toThrow(/only 1 of the 3/);
    expect(await store.claim('e-2', 60_000)).toBe('done');
  });

  it('refuses a waitForReplicas that is not { replicas ≥ 1, timeoutMs ≥ 1 } with a TypeError', () => {
    for (const waitForReplicas of [
      { replicas: 0, timeoutMs: 100 },
      { replicas: 1, timeoutMs: 0 },
      { replicas: 1.5, timeoutMs: 100 },
      { replicas: 1 },
      'yes',
      null,
    ]) {
      expect(() => new RedisStatusStore({ client: primary.client, waitForReplicas: waitForReplicas as never })).toThrow(
        /waitForReplicas must be/,
      );
      expect(() => new RedisEventStore({ client: primary.client, waitForReplicas: waitForReplicas as never })).toThrow(
        /waitForReplicas must be/,
      );
    }
  });
});

describe.each(flavours)('a failover, with $name', (flavour) => {
  let oldMaster: RedisServer;
  let promoted: RedisServer;
  let onMaster: Connection;
  let onReplica: Connection;
  beforeAll(async () => {
    oldMaster = await startRedis();
    promoted = await startRedis({ args: ['--replicaof', '127.0.0.1', String(oldMaster.port)] });
    onMaster = await flavour.connect(oldMaster.url);
    onReplica = await flavour.connect(promoted.url);
    expect(await eventually(async () => String(await onReplica.raw('INFO', 'replication')).includes('master_link_status:up'), 20_000)).toBe(
      true,
    );
  });
  afterAll(async () => {
    await onMaster?.close();
    await onReplica?.close();
    await promoted?.stop();
    await oldMaster?.stop();
  });

  it('loses no commit that waitForReplicas acknowledged; without it, an acknowledged commit is lost', async () => {
    const prefix = `failover-${++prefixes}:`;
    const waiting = new RedisStatusStore({ client: onMaster.client, prefix, waitForReplicas: { replicas: 1, timeoutMs: 200 } });
    const plain = new RedisStatusStore({ client: onMaster.client, prefix });
    for (const id of ['acked-1', 'acked-2', 'acked-3', 'unacked', 'plain']) await plain.watch('order', id);
    const claimed = new Map((await plain.claimDue({ limit: 10, leaseMs: 60_000, owner: 'a' })).map((r) => [r.externalId, r]));
    const final = { failures: 0, next: { end: 'final' as const } };
    for (const id of ['acked-1', 'acked-2', 'acked-3']) expect(await waiting.commit(claimed.get(id)!.lease, 'Settled', final)).toBe(true);
    // the replica link is cut (the replica leaves: as a partition, then a promotion)
    await onReplica.raw('REPLICAOF', 'NO', 'ONE');
    // with waitForReplicas the commit is not acknowledged; without it, it is
    await expect(waiting.commit(claimed.get('unacked')!.lease, 'Settled', final)).rejects.toThrow(/only 0 of the 1 replicas/);
    expect(await plain.commit(claimed.get('plain')!.lease, 'Settled', final)).toBe(true);
    // the master is lost; the promoted replica serves
    await oldMaster.stop();
    const after = new RedisStatusStore({ client: onReplica.client, prefix });
    for (const id of ['acked-1', 'acked-2', 'acked-3']) expect((await after.get('order', id))?.handled?.status).toBe('Settled');
    // what was lost was never reported as recorded with waitForReplicas; without it, it was: that
    // change would be handed over again
    expect((await after.get('order', 'unacked'))?.handled).toBeUndefined();
    expect((await after.get('order', 'plain'))?.handled).toBeUndefined();
  });
});
