import type { InHandRecord } from '../drain.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { plainError, writeTrackerLog } from './logger.js';
import type { ResolvedTrackerOptions } from './options.js';
import type { ServiceHealth } from './service-health.js';
import { runTurn } from './turn.js';
import { TurnHandle } from './turn-handle.js';
import type { ClaimedStatusRecord, StatusKind } from './types.js';

interface Held {
  handle: TurnHandle;
  done: Promise<void>;
}

export interface RecordsInHandHost {
  config: ResolvedTrackerOptions;
  telemetry: Telemetry;
  service: ServiceHealth;
  running(): boolean;
  freed(): void;
}

/** The records this process holds, keyed by record, not by lease: a claim of one in hand never gets a second `onChange`. */
export class RecordsInHand {
  readonly #held = new Map<string, Held>();
  readonly #host: RecordsInHandHost;

  constructor(host: RecordsInHandHost) {
    this.#host = host;
  }

  get size(): number {
    return this.#held.size;
  }

  /** A record already in hand is adopted, not skipped: a skipped claim would leave its commit refused and the change handed over again. */
  take(record: ClaimedStatusRecord): void {
    const held = this.#held.get(recordKey(record));
    if (held !== undefined) held.handle.adopt(record);
    else this.#start(record);
  }

  abortReads(): void {
    for (const { handle } of this.#held.values()) if (!handle.changing) handle.controller.abort();
  }

  giveUp(): void {
    for (const { handle } of this.#held.values()) {
      handle.hold.giveUp('drain');
      handle.controller.abort();
    }
  }

  settled(): Promise<unknown> {
    return Promise.all([...this.#held.values()].map(({ done }) => done));
  }

  report(): InHandRecord[] {
    return [...this.#held.values()].map(({ handle }): InHandRecord => ({
      work: 'tracker.record',
      kind: handle.record.kind,
      externalId: handle.record.externalId,
    }));
  }

  #start(record: ClaimedStatusRecord): void {
    const handle = this.#handleFor(record);
    const held: Held = { handle, done: Promise.resolve() };
    held.done = this.#turns(held);
    this.#held.set(recordKey(record), held);
  }

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

  /** A drain that began during the claim aborts the read at once, so the record is released. */
  #handleFor(record: ClaimedStatusRecord): TurnHandle {
    const handle = new TurnHandle(record);
    if (!this.#host.running()) handle.controller.abort();
    return handle;
  }
}

function recordKey(record: { kind: StatusKind; externalId: string }): string {
  return `${record.kind}:${record.externalId}`;
}
