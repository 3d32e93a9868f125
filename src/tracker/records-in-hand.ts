import type { InHandRecord } from '../drain.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { plainError, writeTrackerLog } from './logger.js';
import type { ResolvedTrackerOptions } from './options.js';
import type { ServiceHealth } from './service-health.js';
import { runTurn } from './turn.js';
import { TurnHandle } from './turn-handle.js';
import type { ClaimedStatusRecord, StatusKind } from './types.js';

/** One record in this process's hands: the turn's handle (replaced when a later claim needs a turn of its own) and when it is done. */
interface Held {
  handle: TurnHandle;
  done: Promise<void>;
}

/** What the records in hand need of the tracker around them. */
export interface RecordsInHandHost {
  config: ResolvedTrackerOptions;
  telemetry: Telemetry;
  /** What the reads tell of the service (they report to it; the claim loop holds back by it). */
  service: ServiceHealth;
  /** Whether the tracker is running: a turn that starts while it drains has its read aborted at once. */
  running(): boolean;
  /** A record left this process's hands (a slot is free): the claim loop may claim again. */
  freed(): void;
}

/**
 * The records this process holds, by record (kind and externalId), not by lease token: a claim
 * that returns a record already in hand (its lease lapsed during a slow turn and the store gave
 * it back to this process) is adopted by the running turn, never given a second onChange.
 */
export class RecordsInHand {
  readonly #held = new Map<string, Held>();
  readonly #host: RecordsInHandHost;

  constructor(host: RecordsInHandHost) {
    this.#host = host;
  }

  /** How many records are in hand (each takes one of `maxConcurrentReads`). */
  get size(): number {
    return this.#held.size;
  }

  /**
   * Takes a claimed record: a record already in hand is adopted, not skipped or released (the
   * running turn then records its change under the new lease, once; a skipped claim would leave
   * its commit refused and the change handed over again); any other starts a turn.
   */
  take(record: ClaimedStatusRecord): void {
    const held = this.#held.get(recordKey(record));
    if (held !== undefined) held.handle.adopt(record);
    else this.#start(record);
  }

  /** Aborts the reads not yet handing over a change: drain gives those records back (released) instead of waiting. */
  abortReads(): void {
    for (const { handle } of this.#held.values()) if (!handle.changing) handle.controller.abort();
  }

  /** Gives up every record in hand (drain waited long enough): leases no longer extended, `onChange` no longer waited for. */
  giveUp(): void {
    for (const { handle } of this.#held.values()) {
      handle.hold.giveUp('drain');
      handle.controller.abort();
    }
  }

  /** Resolves once every turn in hand now has ended. */
  settled(): Promise<unknown> {
    return Promise.all([...this.#held.values()].map(({ done }) => done));
  }

  /** The records still in hand, as drain reports them. */
  report(): InHandRecord[] {
    return [...this.#held.values()].map(({ handle }): InHandRecord => ({
      work: 'tracker.record',
      kind: handle.record.kind,
      externalId: handle.record.externalId,
    }));
  }

  /** Runs the record's turn, then the turn of a later claim of it that the turn did not use, while the process holds it. */
  #start(record: ClaimedStatusRecord): void {
    const handle = this.#handleFor(record);
    const held: Held = { handle, done: Promise.resolve() };
    held.done = this.#turns(held);
    this.#held.set(recordKey(record), held);
  }

  /** The record's turns, one after another, until one leaves no unused claim; then the record leaves this process's hands. */
  async #turns(held: Held): Promise<void> {
    const { config, telemetry, service } = this.#host;
    const { record } = held.handle;
    for (;;) {
      try {
        await runTurn(config, held.handle, telemetry, service);
      } catch (error) {
        writeTrackerLog(config.logger, {
          event: 'tracker.store-failed',
          kind: record.kind,
          externalId: record.externalId,
          error: plainError(error),
        });
      }
      // checked and removed in one step: a claim adopted after this starts a turn of its own
      const unused = held.handle.takeUnused();
      if (unused === undefined) {
        this.#held.delete(recordKey(record));
        this.#host.freed();
        return;
      }
      held.handle = this.#handleFor(unused);
    }
  }

  /** A handle for a claim; a drain that began during the claim aborts its read at once, so the record is released. */
  #handleFor(record: ClaimedStatusRecord): TurnHandle {
    const handle = new TurnHandle(record);
    if (!this.#host.running()) handle.controller.abort();
    return handle;
  }
}

function recordKey(record: { kind: StatusKind; externalId: string }): string {
  return `${record.kind}:${record.externalId}`;
}
