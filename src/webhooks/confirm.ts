import { NotFoundError } from '../errors.js';
import { describe } from '../internal/path.js';
import type { Order, Withdrawal } from '../schemas.js';
import type { WebhookEvent } from './event.js';
import type { ExternalIdResolver, ResolvedOptions, WebhookContext } from './options.js';

type ConfirmConfig = Pick<
  ResolvedOptions,
  'client' | 'resolveOrderExternalId' | 'resolveWithdrawalExternalId' | 'attempts' | 'delayMs'
>;

/**
 * Re-reads the status GET an event is about (the webhook alone is not the source of truth):
 * `otc.trade.*` and `pix.deposit.*` read the order, `pix.withdrawal.*` the withdrawal, up to
 * `attempts` reads `delayMs` apart until the record confirms the event. A 404 gives
 * `confirmed: false`; any other failure rejects, so the delivery fails and is redelivered.
 */
export async function confirmEvent(event: WebhookEvent, config: ConfirmConfig): Promise<WebhookContext> {
  const { type } = event;
  if (type.startsWith('otc.trade.') || type.startsWith('pix.deposit.')) {
    const externalId = await resolveId(config.resolveOrderExternalId, event, 'resolveOrderExternalId');
    if (externalId === undefined) return { event, confirmed: false };
    const read = await readUntil(
      () => config.client.getOrderByExternalId(externalId),
      (order: Order) => orderConfirms(event, order),
      config,
    );
    return read.record === undefined ? { event, confirmed: false } : { event, order: read.record, confirmed: read.confirmed };
  }
  if (type.startsWith('pix.withdrawal.')) {
    const externalId = await resolveId(config.resolveWithdrawalExternalId, event, 'resolveWithdrawalExternalId');
    if (externalId === undefined) return { event, confirmed: false };
    const read = await readUntil(
      () => config.client.getWithdrawalByExternalId(externalId),
      (withdrawal: Withdrawal) => type !== 'pix.withdrawal.settled' || withdrawal.status === 'Completed',
      config,
    );
    return read.record === undefined
      ? { event, confirmed: false }
      : { event, withdrawal: read.record, confirmed: read.confirmed };
  }
  return { event, confirmed: false };
}

function orderConfirms(event: WebhookEvent, order: Order): boolean {
  if (event.type !== 'otc.trade.settled') return true;
  return order.settlement?.status === 'Settled' && order.settlement.tradeId === event['tradeId'];
}

async function resolveId(resolver: ExternalIdResolver | undefined, event: WebhookEvent, name: string): Promise<string | undefined> {
  if (resolver === undefined) return undefined;
  const id: unknown = await resolver(event);
  if (id === undefined || id === null || id === '') return undefined;
  if (typeof id !== 'string') throw new TypeError(`${name} must return a string, null or undefined, got ${describe(id)}`);
  return id;
}

async function readUntil<T>(
  read: () => Promise<T>,
  confirms: (record: T) => boolean,
  { attempts, delayMs }: Pick<ConfirmConfig, 'attempts' | 'delayMs'>,
): Promise<{ record: T | undefined; confirmed: boolean }> {
  let record: T | undefined;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    try {
      record = await read();
    } catch (error) {
      if (isNotFound(error)) return { record: undefined, confirmed: false };
      throw error;
    }
    if (confirms(record)) return { record, confirmed: true };
    if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
  return { record, confirmed: false };
}

/** A 404 from the client: by class, or by its literal name when it comes from another copy of the SDK. */
function isNotFound(error: unknown): boolean {
  return error instanceof NotFoundError || (error instanceof Error && error.name === 'NotFoundError');
}
