import { timerMs } from '../internal/arguments.js';
import { typeName } from '../internal/type-name.js';
import { watchedRecords } from '../telemetry/hooks.js';
import { Telemetry } from '../telemetry/telemetry.js';
import type { WebhookEvent } from '../webhooks/event.js';
import { checkExternalId, checkKind } from '../stores/arguments.js';
import { projectEvent } from '../stores/event-projection.js';
import { plainError, writeTrackerLog } from './logger.js';
import type { DrainOptions, DrainReport, InHandRecord } from '../drain.js';
import { resolveTrackerOptions } from './options.js';
import { bounded, runTurn, TurnHandle } from './turn.js';
import type { ClaimedStatusRecord, StatusKind, StatusTracker, StatusTrackerOptions, WatchArguments } from './types.js';

/**
 * Creates a status tracker: every status change of the orders and withdrawals it watches, handed
 * to `onChange` once, whether a poll or a provider event (through the webhook handler's `tracker`
 * option) saw it first. One loop per tracker reads what the store says is due, at most
 * `maxConcurrentReads` at a time, through the client (so its rate limit and retry budget apply).
 *
 * @example
 * const tracker = createStatusTracker({
 *   client,
 *   store: new RedisStatusStore({ client: redis }),
 *   onChange: async (change) => {
 *     if (change.kind === 'order' && change.status === 'Settled') await fulfil(change.externalId);
 *   },
 * });
 * tracker.start();
 * await tracker.watchOrder('order-42'); // when the checkout opens
 */
export function createStatusTracker<Transaction = undefined>(options: StatusTrackerOptions<Transaction>): StatusTracker<Transaction> {
  const config = resolveTrackerOptions(options);
  const { store } = config;
  const telemetry = new Telemetry(config.telemetry);
  /**
   * The records this process holds, by record (kind and externalId), not by lease token: a claim
   * that returns a record already in hand (its lease lapsed during a slow turn and the store gave
   * it back to this process) is adopted by the running turn, never given a second onChange.
   */
  const inHand = new Map<string, { handle: TurnHandle; done: Promise<void> }>();
  let running = false;
  let loop: Promise<void> | undefined;
  /** Stops the `checkout.tracker.watched` reports (registered at start, removed at drain). */
  let stopWatchedReports: (() => void) | undefined;
  /** Wakes the loop from its wait (a nudge, a finished turn, drain). */
  let poke: (() => void) | undefined;

  /** A wake that came while the loop was not waiting (it was claiming): the next wait is skipped. */
  let woken = false;
  const wake = (): void => {
    if (poke === undefined) woken = true;
    else poke();
  };

  const idle = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      if (woken) {
        woken = false;
        resolve();
        return;
      }
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        poke = undefined;
        resolve();
      }
      poke = done;
    });

  /** Claims due records, bounded in time; a claim answered after the limit gives its records back. */
  async function claimDue(limit: number): Promise<ClaimedStatusRecord[]> {
    const claim = store.claimDue({ limit, leaseMs: config.leaseMs, owner: config.owner });
    try {
      return await bounded(config.storeTimeoutMs, 'claimDue', claim);
    } catch (error) {
      claim.then(
        (late) => {
          for (const record of late) store.release(record.lease).catch(() => undefined);
        },
        () => undefined,
      );
      throw error;
    }
  }

  /** Runs the record's turn, then the turn of a later claim of it that the turn did not use, while the process holds it. */
  function startTurn(record: ClaimedStatusRecord): void {
    const key = recordKey(record);
    const first = new TurnHandle(record);
    // a drain that began during the claim aborts the read at once, so the record is released
    if (!running) first.controller.abort();
    const entry = { handle: first, done: Promise.resolve() };
    entry.done = (async () => {
      for (let handle = first; ; ) {
        try {
          await runTurn(config, handle, telemetry);
        } catch (error) {
          writeTrackerLog(config.logger, { event: 'tracker.store-failed', kind: record.kind, externalId: record.externalId, error: plainError(error) });
        }
        // checked and removed in one step: a claim adopted after this starts a turn of its own
        const unused = handle.takeUnused();
        if (unused === undefined) {
          inHand.delete(key);
          wake();
          return;
        }
        handle = new TurnHandle(unused);
        if (!running) handle.controller.abort();
        entry.handle = handle;
      }
    })();
    inHand.set(key, entry);
  }

  async function run(): Promise<void> {
    if (config.ownerGiven) {
      // a restart with the same owner: take back what the previous life held, due at once
      try {
        await bounded(config.storeTimeoutMs, 'reclaim', store.reclaim(config.owner));
      } catch (error) {
        writeTrackerLog(config.logger, { event: 'tracker.store-failed', error: plainError(error) });
      }
    }
    /** Claims that failed in a row: the wait before the next doubles, up to 5 s (a store outage is not hammered). */
    let storeFailures = 0;
    while (running) {
      const free = config.maxConcurrentReads - inHand.size;
      let claimed = 0;
      if (free > 0) {
        try {
          const records = await claimDue(free);
          claimed = records.length;
          for (const record of records) {
            const held = inHand.get(recordKey(record));
            // adopt, not skip or release: the running turn then records its change under the new
            // lease (once); a skipped claim would leave its commit refused and the change handed over again
            if (held !== undefined) held.handle.adopt(record);
            else startTurn(record);
          }
          storeFailures = 0;
        } catch (error) {
          storeFailures += 1;
          writeTrackerLog(config.logger, { event: 'tracker.store-failed', error: plainError(error) });
        }
      }
      if (!running) break;
      if (storeFailures > 0) {
        await idle(Math.min(5_000, config.claimIntervalMs * 2 ** Math.min(10, storeFailures)));
        continue;
      }
      // every slot taken: wait for one to free (a finished turn wakes us); else more may be due soon
      if (claimed > 0 && claimed === free) await idle(config.claimIntervalMs * 4);
      else if (free <= 0) await idle(config.claimIntervalMs * 4);
      else await idle(config.claimIntervalMs);
    }
  }

  async function watch(kind: StatusKind, externalId: string, watchOptions: unknown): Promise<void> {
    checkExternalId(externalId);
    if (watchOptions !== undefined && (watchOptions === null || typeof watchOptions !== 'object')) {
      throw new TypeError(`watch options must be an object { transaction? }, got ${typeName(watchOptions)}`);
    }
    const transaction = (watchOptions as { transaction?: unknown } | undefined)?.transaction;
    if (transaction === undefined) await store.watch(kind, externalId);
    else if (config.transactional === undefined) {
      throw new TypeError('a watch can join a transaction only with a transactional store (PostgresStatusStore with transactional: true)');
    } else await config.transactional.watch(kind, externalId, { transaction });
    wake();
  }

  return {
    async watchOrder(externalId: string, ...watchOptions: WatchArguments<Transaction>): Promise<void> {
      await watch('order', externalId, watchOptions[0]);
    },

    async watchWithdrawal(externalId: string, ...watchOptions: WatchArguments<Transaction>): Promise<void> {
      await watch('withdrawal', externalId, watchOptions[0]);
    },

    async unwatch(kind: StatusKind, externalId: string): Promise<void> {
      checkKind(kind);
      checkExternalId(externalId);
      await store.unwatch(kind, externalId);
    },

    async nudge(kind: StatusKind, externalId: string, nudgeOptions?: { event?: WebhookEvent | undefined }): Promise<void> {
      checkKind(kind);
      checkExternalId(externalId);
      if (nudgeOptions !== undefined && (nudgeOptions === null || typeof nudgeOptions !== 'object')) {
        throw new TypeError(`nudge options must be an object { event? }, got ${typeName(nudgeOptions)}`);
      }
      const event = nudgeOptions?.event;
      // the store keeps a bounded projection, never a whole provider payload
      await store.nudge(kind, externalId, event === undefined ? {} : { event: projectEvent(event) });
      wake();
    },

    start(): void {
      if (running) return;
      running = true;
      const countWatched = store.countWatched;
      if (typeof countWatched === 'function') stopWatchedReports = watchedRecords(telemetry, () => countWatched.call(store));
      const previous = loop ?? Promise.resolve();
      // a restart after drain waits for the old loop to have stopped
      loop = previous.then(run);
    },

    async drain(drainOptions?: DrainOptions): Promise<DrainReport> {
      if (drainOptions !== undefined && (drainOptions === null || typeof drainOptions !== 'object')) {
        throw new TypeError(`drain options must be an object { timeoutMs? }, got ${typeName(drainOptions)}`);
      }
      const timeoutMs = timerMs('drain timeoutMs', drainOptions?.timeoutMs, 10_000);
      running = false;
      stopWatchedReports?.();
      stopWatchedReports = undefined;
      wake();
      // reads not yet handing over a change are given back (released), not waited for
      for (const { handle } of inHand.values()) if (!handle.changing) handle.controller.abort();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<true>((resolve) => {
        timer = setTimeout(() => resolve(true), timeoutMs);
      });
      try {
        const settled = Promise.all([loop, ...[...inHand.values()].map(({ done }) => done)]).then(() => false as const);
        const timedOut = await Promise.race([settled, deadline]);
        const left = [...inHand.values()].map(({ handle }): InHandRecord => ({ work: 'tracker.record', kind: handle.record.kind, externalId: handle.record.externalId }));
        return { drained: !timedOut && left.length === 0, inHand: left };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function recordKey(record: { kind: StatusKind; externalId: string }): string {
  return `${record.kind}:${record.externalId}`;
}
