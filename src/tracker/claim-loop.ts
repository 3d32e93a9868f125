import type { DrainReport } from '../drain.js';
import { afterThisTurn } from '../internal/after-this-turn.js';
import { overdueRecords, watchedRecords } from '../telemetry/hooks.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { plainError, writeTrackerLog } from './logger.js';
import type { ResolvedTrackerOptions } from './options.js';
import { RecordsInHand } from './records-in-hand.js';
import { ServiceHealth } from './service-health.js';
import { bounded } from './store-call.js';
import { monotonic } from './turn-handle.js';
import type { ClaimedStatusRecord, TrackerHealth } from './types.js';
import { Waker } from './waker.js';

/** The longest wait after failed claims: a store outage is retried at most this far apart. */
const MAX_FAILURE_WAIT_MS = 5_000;

/** How late the loop may be back from a claim or a wait (a busy event loop) before it counts as wedged. */
const LIVE_SLACK_MS = 10_000;

/**
 * The tracker's one loop: it claims what the store says is due, at most `maxConcurrentReads`
 * records in hand at a time, and starts a turn for each; `start()` and `drain()` run and stop it.
 */
export class ClaimLoop {
  readonly #config: ResolvedTrackerOptions;
  readonly #telemetry: Telemetry;
  readonly #waker = new Waker();
  readonly #inHand: RecordsInHand;
  readonly #service: ServiceHealth;
  #running = false;
  #draining = false;
  /** While holding back (the service fails): no probe read before this (monotonic clock). */
  #nextProbeAt = 0;
  /** When a claim last succeeded (epoch milliseconds, this process's clock), for `health()`. */
  #lastClaimAt: number | undefined;
  /** Whether the loop has tried a claim since `start()` (the startup probe's answer). */
  #started = false;
  /** Whether the last claim succeeded: the store answers (the readiness probe's answer). */
  #claimsAnswered = false;
  /** When the loop, claiming or waiting, is due back (monotonic clock): past it (and a slack) it is wedged. */
  #dueBackAt = 0;
  #loop: Promise<void> | undefined;
  /** Stops the `checkout.tracker.watched` reports (registered at start, removed at drain). */
  #stopWatchedReports: (() => void) | undefined;
  /** Stops the `checkout.tracker.overdue` and `oldest_overdue` reports (registered at start, removed at drain). */
  #stopOverdueReports: (() => void) | undefined;

  constructor(config: ResolvedTrackerOptions, telemetry: Telemetry) {
    this.#config = config;
    this.#telemetry = telemetry;
    this.#service = new ServiceHealth(config.schedule, () => this.wake());
    this.#inHand = new RecordsInHand({
      config,
      telemetry,
      service: this.#service,
      running: () => this.#running,
      // after this turn of the event loop: the slots that turns ending together free are claimed at once, in one claim
      freed: () => afterThisTurn(() => this.wake()),
    });
  }

  /** Claims again now rather than at the next interval (a watch, a nudge or a freed slot may have made a record due). */
  wake(): void {
    this.#waker.wake();
  }

  /** What `tracker.health()` takes from the loop: whether it runs, drains, started, is live and ready, the records in hand, the last claim. */
  state(): Pick<TrackerHealth, 'running' | 'draining' | 'started' | 'live' | 'ready' | 'inHand' | 'lastClaimAt'> {
    const running = this.#running;
    return {
      running,
      draining: this.#draining,
      started: this.#started,
      live: !running || monotonic() <= this.#dueBackAt + LIVE_SLACK_MS,
      ready: running && !this.#draining && this.#claimsAnswered,
      inHand: this.#inHand.size,
      lastClaimAt: this.#lastClaimAt,
    };
  }

  /** `tracker.start()`: runs the loop, after the one a previous drain stopped has ended. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#dueBackAt = monotonic() + this.#config.storeTimeoutMs;
    const { store } = this.#config;
    const countWatched = store.countWatched?.bind(store);
    if (typeof countWatched === 'function') this.#stopWatchedReports = watchedRecords(this.#telemetry, countWatched);
    const overdue = store.overdue?.bind(store);
    if (typeof overdue === 'function') this.#stopOverdueReports = overdueRecords(this.#telemetry, overdue);
    const previous = this.#loop ?? Promise.resolve();
    // a restart after drain waits for the old loop to have stopped
    this.#loop = previous.then(() => this.#run());
  }

  /**
   * `tracker.drain()`: stops claiming, gives back the records whose read has not begun handing over
   * a change (released, not waited for), and waits up to `timeoutMs` for the loop and the turns still
   * handing over.
   */
  async drain(timeoutMs: number): Promise<DrainReport> {
    this.#running = false;
    this.#draining = true;
    this.#stopWatchedReports?.();
    this.#stopWatchedReports = undefined;
    this.#stopOverdueReports?.();
    this.#stopOverdueReports = undefined;
    this.wake();
    this.#inHand.abortReads();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    });
    try {
      const settled = Promise.all([this.#loop, this.#inHand.settled()]).then(() => false as const);
      const timedOut = await Promise.race([settled, deadline]);
      const left = this.#inHand.report();
      // what is left is let go: no lease extended, nothing of the tracker's keeps the process alive
      if (timedOut) this.#inHand.giveUp();
      return { drained: !timedOut && left.length === 0, inHand: left };
    } finally {
      clearTimeout(timer);
      this.#draining = false;
    }
  }

  /** The loop: claim into the free slots, then wait (longer after failures, or with every slot taken), until drain. */
  async #run(): Promise<void> {
    this.#dueBackAt = monotonic() + this.#config.storeTimeoutMs;
    await this.#reclaim();
    /** Claims that failed in a row: the wait before the next doubles, up to 5 s (a store outage is not hammered). */
    let storeFailures = 0;
    while (this.#running) {
      const free = this.#service.holdingBack ? this.#probeSlots() : this.#config.maxConcurrentReads - this.#inHand.size;
      let claimed = 0;
      if (free > 0) {
        this.#dueBackAt = monotonic() + this.#config.storeTimeoutMs;
        try {
          claimed = await this.#claimInto(free);
          storeFailures = 0;
          this.#claimsAnswered = true;
        } catch (error) {
          storeFailures += 1;
          this.#claimsAnswered = false;
          writeTrackerLog(this.#config.logger, { event: 'tracker.store-failed', error: plainError(error) });
        }
        this.#started = true;
      }
      if (!this.#running) break;
      const waitMs = this.#waitMs(free, claimed, storeFailures);
      this.#dueBackAt = monotonic() + waitMs;
      await this.#waker.idle(waitMs);
    }
  }

  /** A restart with the same `owner`: takes back what the previous life of this process held, due at once. */
  async #reclaim(): Promise<void> {
    const config = this.#config;
    if (!config.ownerGiven) return;
    try {
      await bounded(config.storeTimeoutMs, 'reclaim', config.store.reclaim(config.owner));
    } catch (error) {
      writeTrackerLog(config.logger, { event: 'tracker.store-failed', error: plainError(error) });
    }
  }

  /** Claims up to `free` due records and takes each in hand; resolves how many were claimed. */
  async #claimInto(free: number): Promise<number> {
    const records = await this.#claimDue(free);
    this.#lastClaimAt = Date.now();
    for (const record of records) this.#inHand.take(record);
    return records.length;
  }

  /** Claims due records, bounded in time; a claim answered after the limit gives its records back. */
  async #claimDue(limit: number): Promise<ClaimedStatusRecord[]> {
    const { store, leaseMs, owner, storeTimeoutMs } = this.#config;
    const claim = store.claimDue({ limit, leaseMs, owner });
    try {
      return await bounded(storeTimeoutMs, 'claimDue', claim);
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

  /**
   * While the service fails: one probe read at a time, spaced by the service's probe wait (records
   * due meanwhile stay due, read as soon as a read is answered again).
   */
  #probeSlots(): number {
    if (this.#inHand.size > 0 || monotonic() < this.#nextProbeAt) return 0;
    this.#nextProbeAt = monotonic() + this.#service.probeWaitMs();
    return 1;
  }

  /** How long to wait before the next claim: backing off after failures; longer with every slot taken (a finished turn wakes the loop); else more may be due soon. */
  #waitMs(free: number, claimed: number, storeFailures: number): number {
    const interval = this.#config.claimIntervalMs;
    if (storeFailures > 0) return Math.min(MAX_FAILURE_WAIT_MS, interval * 2 ** Math.min(10, storeFailures));
    if (this.#service.holdingBack) return Math.max(interval, this.#nextProbeAt - monotonic());
    if ((claimed > 0 && claimed === free) || free <= 0) return interval * 4;
    return interval;
  }
}
