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

const MAX_FAILURE_WAIT_MS = 5_000;

/** How late the loop may be back from a claim or a wait (a busy event loop) before it is wedged. */
const LIVE_SLACK_MS = 10_000;

/** The tracker's one loop: claims what is due into at most `maxConcurrentReads` slots, a turn for each. */
export class ClaimLoop {
  readonly #config: ResolvedTrackerOptions;
  readonly #telemetry: Telemetry;
  readonly #waker = new Waker();
  readonly #inHand: RecordsInHand;
  readonly #service: ServiceHealth;
  #running = false;
  #draining = false;
  #nextProbeAt = 0;
  #lastClaimAt: number | undefined;
  #started = false;
  #claimsAnswered = false;
  /** When the loop is due back from its claim or wait (monotonic clock). */
  #dueBackAt = 0;
  #loop: Promise<void> | undefined;
  #stopWatchedReports: (() => void) | undefined;
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
      // turns that end together free their slots into one claim
      freed: () => afterThisTurn(() => this.wake()),
    });
  }

  wake(): void {
    this.#waker.wake();
  }

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

  /** Stops claiming, releases the records not yet handing over a change, and waits up to `timeoutMs` for the rest. */
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
      // let go what is left: no lease extended, no timer keeps the process alive
      if (timedOut) this.#inHand.giveUp();
      return { drained: !timedOut && left.length === 0, inHand: left };
    } finally {
      clearTimeout(timer);
      this.#draining = false;
    }
  }

  async #run(): Promise<void> {
    this.#dueBackAt = monotonic() + this.#config.storeTimeoutMs;
    await this.#reclaim();
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

  async #reclaim(): Promise<void> {
    const config = this.#config;
    if (!config.ownerGiven) return;
    try {
      await bounded(config.storeTimeoutMs, 'reclaim', config.store.reclaim(config.owner));
    } catch (error) {
      writeTrackerLog(config.logger, { event: 'tracker.store-failed', error: plainError(error) });
    }
  }

  async #claimInto(free: number): Promise<number> {
    const records = await this.#claimDue(free);
    this.#lastClaimAt = Date.now();
    for (const record of records) this.#inHand.take(record);
    return records.length;
  }

  /** A claim answered after the store time limit gives its records back. */
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

  /** While the service fails: one probe read at a time, spaced by the probe wait. */
  #probeSlots(): number {
    if (this.#inHand.size > 0 || monotonic() < this.#nextProbeAt) return 0;
    this.#nextProbeAt = monotonic() + this.#service.probeWaitMs();
    return 1;
  }

  /** Backs off after failed claims; waits longer with every slot taken (a finished turn wakes the loop). */
  #waitMs(free: number, claimed: number, storeFailures: number): number {
    const interval = this.#config.claimIntervalMs;
    if (storeFailures > 0) return Math.min(MAX_FAILURE_WAIT_MS, interval * 2 ** Math.min(10, storeFailures));
    if (this.#service.holdingBack) return Math.max(interval, this.#nextProbeAt - monotonic());
    if ((claimed > 0 && claimed === free) || free <= 0) return interval * 4;
    return interval;
  }
}
