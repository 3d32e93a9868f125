import { NotFoundError } from '../../errors.js';
import { confirmsEvent } from '../../event-types.js';
import { sleep, untilAborted } from '../../internal/abort.js';
import { readRecord, type KindRecord } from '../../kinds.js';
import type { WebhookEvent } from '../event.js';
import type { WebhookContext } from './options.js';
import type { ResolvedOptions } from './resolve-options.js';
import { resolveRecord, type ResolveConfig } from './resolve-record.js';

type ConfirmConfig = ResolveConfig & Pick<ResolvedOptions, 'client' | 'attempts' | 'delayMs'>;

/** What the confirm step gives `onEvent`: its context but the signal, which the delivery adds. */
export type ConfirmedContext = Omit<WebhookContext, 'signal'>;

/**
 * When the confirm reads must be over: shortly before the claim's lease passes, after which a
 * redelivery could claim the event and run it a second time.
 */
export interface ConfirmDeadline {
  /** Aborts at {@link ConfirmDeadline.at}, with the reason the delivery fails with. */
  readonly signal: AbortSignal;
  /** The deadline, in epoch milliseconds. */
  readonly at: number;
}

/**
 * Re-reads the status GET an event is about (the webhook alone is not the source of truth), as the
 * event types table says (`otc.trade.*` read the order, for example), its externalId from the
 * partner's resolver (or, with a tracker, the order whose reads revealed the event's `tradeId`).
 * Only the types whose target state the contract names (the table's `announces`) can be confirmed:
 * their record is read up to `attempts` times, `delayMs` apart, until it confirms the event. Any
 * other type's record is read once and handed over with `confirmed: false` (a re-read could never confirm it).
 * A 404 gives `confirmed: false`; any other failure rejects, so the delivery fails and is redelivered.
 *
 * Every read gets `deadline.signal`, and a read (or a resolver) still running when it aborts
 * rejects with its reason (even from a client that ignores the signal). No wait and next read is started that
 * could not end before `deadline.at`: the reads stop there as if `attempts` were spent.
 */
export async function confirmEvent(event: WebhookEvent, config: ConfirmConfig, deadline: ConfirmDeadline): Promise<ConfirmedContext> {
  const target = await resolveRecord(config, event, deadline.signal);
  if (target?.externalId === undefined) return { event, confirmed: false };
  const { kind, externalId } = target;
  const read = await readUntil((signal) => readRecord(config.client, kind, externalId, { signal }), confirmsEvent(event), config, deadline);
  if (read.record === undefined) return { event, confirmed: false };
  // the record under its kind's name (`order`, ...) as 1.1 handed it over, and in `record`:
  // not enumerable, so a context deep-equal to a 1.1 one (a partner's test) still is
  const context: ConfirmedContext = { event, [kind]: read.record, confirmed: read.confirmed };
  const record = { kind, externalId, data: read.record } as KindRecord;
  return Object.defineProperty(context, 'record', { value: record, enumerable: false, writable: true, configurable: true });
}

/** Reads until `confirms` holds, or once when there is no target state to confirm (`confirms` undefined). */
async function readUntil<T>(
  read: (signal: AbortSignal) => Promise<T>,
  confirms: ((record: T) => boolean) | undefined,
  { attempts, delayMs }: Pick<ConfirmConfig, 'attempts' | 'delayMs'>,
  { signal, at }: ConfirmDeadline,
): Promise<{ record: T | undefined; confirmed: boolean }> {
  let record: T | undefined;
  const reads = confirms === undefined ? 1 : attempts;
  for (let attempt = 1; attempt <= reads; attempt += 1) {
    if (attempt > 1) {
      // no room left for the wait and another read: end as when the attempts are spent, so
      // onEvent still starts inside the lease
      if (performance.now() + delayMs >= at) break;
      await sleep(delayMs, signal);
    }
    try {
      signal.throwIfAborted();
      record = await untilAborted(read(signal), signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (isNotFound(error)) return { record: undefined, confirmed: false };
      throw error;
    }
    if (confirms?.(record) === true) return { record, confirmed: true };
  }
  return { record, confirmed: false };
}

/** A 404 from the client: by class, or by its literal name when it comes from another copy of the SDK. */
function isNotFound(error: unknown): boolean {
  return error instanceof NotFoundError || (error instanceof Error && error.name === 'NotFoundError');
}
