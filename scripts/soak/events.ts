/**
 * The soak's provider events and the records the fake checkout service holds for them, derived
 * from the event's index alone, so every process (fake service, receivers, provider, checker)
 * agrees without sharing state.
 */

export const PARTNER_ID = 'soak-partner';
export const PARTNER_SECRET = 'soak-partner-secret';
export const PREFIX = 'soak:event:';

/** The environment variable `name` of a soak child process; a `TypeError` when unset or empty. */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new TypeError(`${name} is required`);
  return value;
}

export interface SoakEvent {
  eventId: string;
  type: 'otc.trade.settled' | 'pix.withdrawal.settled' | 'pix.deposit.received';
  tradeId?: string;
  orderExternalId?: string;
  withdrawalExternalId?: string;
  sequence: number;
}

/** Two records in 50 are still pending (an order, a withdrawal). */
function pending(index: number): boolean {
  return index % 50 === 3 || index % 50 === 7;
}

/**
 * What `onEvent` must get as `confirmed`: a settled event is confirmed once its record is settled;
 * a deposit event never (the contract names no target state for it: its order is handed over).
 */
export function expectedConfirmed(index: number): boolean {
  return soakEvent(index).type !== 'pix.deposit.received' && !pending(index);
}

export function soakEvent(index: number): SoakEvent {
  const eventId = `soak-${index}`;
  switch (index % 10) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
      return { eventId, type: 'otc.trade.settled', tradeId: `t-${index}`, orderExternalId: `o-${index}`, sequence: index };
    case 5:
    case 6:
    case 7:
      return { eventId, type: 'pix.withdrawal.settled', withdrawalExternalId: `w-${index}`, sequence: index };
    default:
      return { eventId, type: 'pix.deposit.received', orderExternalId: `o-${index}`, sequence: index };
  }
}

/** The record the fake service holds for event `index`. */
export function soakRecord(
  index: number,
):
  | { kind: 'order'; order: { externalId: string; currency: string; settlement: { status: string; tradeId: string | null } } }
  | { kind: 'withdrawal'; withdrawal: { externalId: string; status: string } } {
  const event = soakEvent(index);
  const settled = !pending(index);
  if (event.withdrawalExternalId !== undefined) {
    return { kind: 'withdrawal', withdrawal: { externalId: event.withdrawalExternalId, status: settled ? 'Completed' : 'Processing' } };
  }
  return {
    kind: 'order',
    order: {
      externalId: event.orderExternalId ?? '',
      currency: 'USDT',
      settlement: { status: settled ? 'Settled' : 'Pending', tradeId: event.tradeId ?? `t-${index}` },
    },
  };
}
