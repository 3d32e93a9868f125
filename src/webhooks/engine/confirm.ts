import { NotFoundError } from '../../errors.js';
import { sleep, untilAborted } from '../../internal/abort.js';
import { typeName } from '../../internal/type-name.js';
import type { Order, Withdrawal } from '../../schemas.js';
import type { WebhookEvent } from '../event.js';
import type { ExternalIdResolver, WebhookContext } from './options.js';
import type { ResolvedOptions } from './resolve-options.js';

type ConfirmConfig = Pick<ResolvedOptions, 'client' | 'resolveOrderExternalId' | 'resolveWithdrawalExternalId' | 'attempts' | 'delayMs'>;

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
 * `otc.trade.*` and `pix.deposit.*` read the order, `pix.withdrawal.*` the withdrawal. Only the
 * types whose target state the contract names can be confirmed (`otc.trade.settled`,
 * `otc.trade.cancelled`, `pix.withdrawal.settled`): their record is read up to `attempts` times,
 * `delayMs` apart, until it confirms the event. Any other type's record is read once and handed
 * over with `confirmed: false` (a re-read could never confirm it). A 404 gives `confirmed: false`;
 * any other failure rejects, so the delivery fails and is redelivered.
 *
 * Every read gets `deadline.signal`, and a read (or a resolver) still running when it aborts
 * rejects with its reason (even from a client that ignores the signal). No wait and next read is started that
 * could not end before `deadline.at`: the reads stop there as if `attempts` were spent.
 */
export async function confirmEvent(event: WebhookEvent, config: ConfirmConfig, deadline: ConfirmDeadline): Promise<WebhookContext> {
  const { type } = event;
  if (type.startsWith('otc.trade.') || type.startsWith('pix.deposit.')) {
    const externalId = await resolveId(config.resolveOrderExternalId, event, 'resolveOrderExternalId', deadline.signal);
    if (externalId === undefined) return { event, confirmed: false };
    const read = await readUntil(
      (signal) => config.client.getOrderByExternalId(externalId, { signal }),
      orderTarget(event),
      config,
      deadline,
    );
    return read.record === undefined ? { event, confirmed: false } : { event, order: read.record, confirmed: read.confirmed };
  }
  if (type.startsWith('pix.withdrawal.')) {
    const externalId = await resolveId(config.resolveWithdrawalExternalId, event, 'resolveWithdrawalExternalId', deadline.signal);
    if (externalId === undefined) return { event, confirmed: false };
    const read = await readUntil(
      (signal) => config.client.getWithdrawalByExternalId(externalId, { signal }),
      type === 'pix.withdrawal.settled' ? (withdrawal: Withdrawal) => withdrawal.status === 'Completed' : undefined,
      config,
      deadline,
    );
    return read.record === undefined ? { event, confirmed: false } : { event, withdrawal: read.record, confirmed: read.confirmed };
  }
  return { event, confirmed: false };
}

/** Whether an order is in the state an order event announces; `undefined` for types whose target state the contract does not name. */
function orderTarget(event: WebhookEvent): ((order: Order) => boolean) | undefined {
  const { tradeId } = event;
  // an event without a string tradeId confirms nothing (never `undefined === undefined` or `null === null`)
  const sameTrade = (order: Order) => typeof tradeId === 'string' && order.settlement?.tradeId === tradeId;
  if (event.type === 'otc.trade.settled') return (order) => sameTrade(order) && order.settlement?.status === 'Settled';
  if (event.type === 'otc.trade.cancelled') return (order) => sameTrade(order) && namesCancellation(order.settlement?.status);
  return undefined;
}

/**
 * Whether a settlement status names a cancellation. The spec names no cancelled value, so any status
 * that begins with "cancel" in any case counts (`Cancelled`, `CANCELED`, `cancellation_done`); a
 * `Pending`, `Settled` or other status does not, and is re-read like an unconfirmed settlement.
 */
function namesCancellation(status: unknown): boolean {
  return typeof status === 'string' && /^cancel/i.test(status);
}

/**
 * The resolver's id, under the same deadline as the reads: a resolver is partner code (a lookup in
 * their database) that can hang like a read, and past the lease a redelivery could run the event twice.
 */
async function resolveId(
  resolver: ExternalIdResolver | undefined,
  event: WebhookEvent,
  name: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  if (resolver === undefined) return undefined;
  signal.throwIfAborted();
  const id: unknown = await untilAborted(Promise.resolve(resolver(event)), signal);
  if (id === undefined || id === null || id === '') return undefined;
  if (typeof id !== 'string') throw new TypeError(`${name} must return a string, null or undefined, got ${typeName(id)}`);
  return id;
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
