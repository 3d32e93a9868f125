import { typeName } from '../internal/type-name.js';
import { timerMs } from '../internal/timer-ms.js';
import { Telemetry } from '../telemetry/telemetry.js';
import type { WebhookEvent } from '../webhooks/event.js';
import { checkExternalId, checkKind } from './arguments.js';
import { plainError, writeTrackerLog } from './logger.js';
import { resolveTrackerOptions } from './options.js';
import { runTurn, type TurnHandle } from './turn.js';
import type { StatusKind, StatusTracker, StatusTrackerOptions, TrackerDrainReport } from './types.js';

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
export function createStatusTracker<Transaction = undefined>(options: StatusTrackerOptions<Transaction>): StatusTracker {
  const config = resolveTrackerOptions(options);
  const { store } = config;
  const telemetry = new Telemetry(config.telemetry);
  /** The records this process holds, by lease token. */
  const inHand = new Map<string, { handle: TurnHandle; done: Promise<void> }>();
  let running = false;
  let loop: Promise<void> | undefined;
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

  async function run(): Promise<void> {
    /** Claims that failed in a row: the wait before the next doubles, up to 5 s (a store outage is not hammered). */
    let storeFailures = 0;
    while (running) {
      const free = config.maxConcurrentReads - inHand.size;
      let claimed = 0;
      if (free > 0) {
        try {
          const records = await store.claimDue({ now: Date.now(), limit: free, leaseMs: config.leaseMs, owner: config.owner });
          const claimedAt = Date.now();
          claimed = records.length;
          for (const record of records) {
            const handle: TurnHandle = { record, controller: new AbortController(), claimedAt, changing: false };
            // a drain that began during the claim aborts the read at once, so the record is released
            if (!running) handle.controller.abort();
            const done = runTurn(config, handle, telemetry)
              .catch((error: unknown) => writeTrackerLog(config.logger, { type: 'store-failed', kind: record.kind, externalId: record.externalId, error: plainError(error) }))
              .finally(() => {
                inHand.delete(record.lease.token);
                wake();
              });
            inHand.set(record.lease.token, { handle, done });
          }
          storeFailures = 0;
        } catch (error) {
          storeFailures += 1;
          writeTrackerLog(config.logger, { type: 'store-failed', error: plainError(error) });
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

  return {
    async watchOrder(externalId: string): Promise<void> {
      checkExternalId(externalId);
      await store.watch('order', externalId, Date.now());
      wake();
    },

    async watchWithdrawal(externalId: string): Promise<void> {
      checkExternalId(externalId);
      await store.watch('withdrawal', externalId, Date.now());
      wake();
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
      await store.nudge(kind, externalId, event === undefined ? { now: Date.now() } : { now: Date.now(), event });
      wake();
    },

    start(): void {
      if (running) return;
      running = true;
      const previous = loop ?? Promise.resolve();
      // a restart after drain waits for the old loop to have stopped
      loop = previous.then(run);
    },

    async drain(drainOptions?: { timeoutMs?: number | undefined }): Promise<TrackerDrainReport> {
      if (drainOptions !== undefined && (drainOptions === null || typeof drainOptions !== 'object')) {
        throw new TypeError(`drain options must be an object { timeoutMs? }, got ${typeName(drainOptions)}`);
      }
      const timeoutMs = timerMs('drain timeoutMs', drainOptions?.timeoutMs, 10_000);
      running = false;
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
        const left = [...inHand.values()].map(({ handle }) => ({ kind: handle.record.kind, externalId: handle.record.externalId }));
        return { drained: !timedOut && left.length === 0, inHand: left };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
