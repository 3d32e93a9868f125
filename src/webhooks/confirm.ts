import { NotFoundError } from '../errors.js';
import { sleep, untilAborted } from '../internal/abort.js';
import { describe } from '../internal/path.js';
import type { Order, Withdrawal } from '../schemas.js';
import type { WebhookEvent } from './event.js';
import type { ExternalIdResolver, ResolvedOptions, WebhookContext } from './options.js';

type ConfirmConfig = Pick<
  ResolvedOptions,
  'client' | 'resolveOrderExternalId' | 'resolveWithdrawalExternalId' | 'attempts' | 'delayMs'
>;

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
 * Re-reads the status GET an event is about (the webhook alone is not the source of truth):
 * `otc.trade.*` and `pix.deposit.*` read the order, `pix.withdrawal.*` the withdrawal, up to
 * `attempts` reads `delayMs` apart until the record confirms the event. A 404 gives
 * `confirmed: false`; any other failure rejects, so the delivery fails and is redelivered.
 *
 * Every read gets `deadline.signal`, and a read still running when it aborts rejects with its
 * reason (even from a client that ignores the signal). No wait and next read is started that
 * could not end before `deadline.at`: the reads stop there as if `attempts` were spent.
 */
export async function confirmEvent(event: WebhookEvent, config: ConfirmConfig, deadline: ConfirmDeadline): Promise<WebhookContext> {
  const { type } = event;
  if (type.startsWith('otc.trade.') || type.startsWith('pix.deposit.')) {
    const externalId = await resolveId(config.resolveOrderExternalId, event, 'resolveOrderExternalId');
    if (externalId === undefined) return { event, confirmed: false };
    const read = await readUntil(
      (signal) => config.client.getOrderByExternalId(externalId, { signal }),
      (order: Order) => orderConfirms(event, order),
      config,
      deadline,
    );
    return read.record === undefined ? { event, confirmed: false } : { event, order: read.record, confirmed: read.confirmed };
  }
  if (type.startsWith('pix.withdrawal.')) {
    const externalId = await resolveId(config.resolveWithdrawalExternalId, event, 'resolveWithdrawalExternalId');
    if (externalId === undefined) return { event, confirmed: false };
    const read = await readUntil(
      (signal) => config.client.getWithdrawalByExternalId(externalId, { signal }),
      (withdrawal: Withdrawal) => type !== 'pix.withdrawal.settled' || withdrawal.status === 'Completed',
      config,
      deadline,
    );
    return read.record === undefined
      ? { event, confirmed: false }
      : { event, withdrawal: read.record, confirmed: read.confirmed };
  }
  return { event, confirmed: false };
}

function orderConfirms(event: WebhookEvent, order: Order): boolean {
  if (event.type !== 'otc.trade.settled') return true;
  const { tradeId } = event;
  // an event without a string tradeId confirms nothing (never `undefined === undefined` or `null === null`)
  return typeof tradeId === 'string' && order.settlement?.status === 'Settled' && order.settlement.tradeId === tradeId;
}

async function resolveId(resolver: ExternalIdResolver | undefined, event: WebhookEvent, name: string): Promise<string | undefined> {
  if (resolver === undefined) return undefined;
  const id: unknown = await resolver(event);
  if (id === undefined || id === null || id === '') return undefined;
  if (typeof id !== 'string') throw new TypeError(`${name} must return a string, null or undefined, got ${describe(id)}`);
  return id;
}

async function readUntil<T>(
  read: (signal: AbortSignal) => Promise<T>,
  confirms: (record: T) => boolean,
  { attempts, delayMs }: Pick<ConfirmConfig, 'attempts' | 'delayMs'>,
  { signal, at }: ConfirmDeadline,
): Promise<{ record: T | undefined; confirmed: boolean }> {
  let record: T | undefined;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    if (attempt > 1) {
      // no room left for the wait and another read: end as when the attempts are spent, so
      // onEvent still starts inside the lease
      if (Date.now() + delayMs >= at) break;
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
    if (confirms(record)) return { record, confirmed: true };
  }
  return { record, confirmed: false };
}

/** A 404 from the client: by class, or by its literal name when it comes from another copy of the SDK. */
function isNotFound(error: unknown): boolean {
  return error instanceof NotFoundError || (error instanceof Error && error.name === 'NotFoundError');
}
