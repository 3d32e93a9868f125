import { isNotFound } from '../../errors.js';
import { confirmsEvent } from '../../event-types.js';
import { sleep, untilAborted } from '../../internal/abort.js';
import { readRecord, type KindRecord } from '../../kinds.js';
import type { WebhookEvent } from '../event.js';
import type { WebhookContext } from './options.js';
import type { ResolvedOptions } from './resolve-options.js';
import { resolveRecord, type ResolveConfig } from './resolve-record.js';

type ConfirmConfig = ResolveConfig & Pick<ResolvedOptions, 'client' | 'attempts' | 'delayMs'>;

export type ConfirmedContext = Omit<WebhookContext, 'signal'>;

/** When the confirm reads must be over: a margin before the claim's lease passes. */
export interface ConfirmDeadline {
  readonly signal: AbortSignal;
  /** On `performance.now()`'s clock. */
  readonly at: number;
}

/**
 * Re-reads the record an event is about (the webhook alone is not the source of truth): up to `attempts` times,
 * `delayMs` apart, until it confirms the event; once for a type that announces no status. A 404 is
 * `confirmed: false`, any other failure rejects. No read starts that could not end before `deadline.at`.
 */
export async function confirmEvent(event: WebhookEvent, config: ConfirmConfig, deadline: ConfirmDeadline): Promise<ConfirmedContext> {
  const target = await resolveRecord(config, event, deadline.signal);
  if (target?.externalId === undefined) return { event, confirmed: false };
  const { kind, externalId } = target;
  const read = await readUntil((signal) => readRecord(config.client, kind, externalId, { signal }), confirmsEvent(event), config, deadline);
  if (read.record === undefined) return { event, confirmed: false };
  // `record` not enumerable: a context deep-equal to a 1.1 one (a partner's test) still is
  const context: ConfirmedContext = { event, [kind]: read.record, confirmed: read.confirmed };
  const record = { kind, externalId, data: read.record } as KindRecord;
  return Object.defineProperty(context, 'record', { value: record, enumerable: false, writable: true, configurable: true });
}

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
      // no room for the wait and another read: stop, so onEvent still starts inside the lease
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
