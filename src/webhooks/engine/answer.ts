import type { WebhookLogEntry } from '../../logger.js';
import type { DeliveryResult, PlainResponse } from './delivery-types.js';
import { logError, type LogWrite } from './logger.js';
import { OUTCOME_MESSAGE, OUTCOME_STATUS } from './outcome.js';

const TEXT = 'text/plain; charset=utf-8';

export function answer(result: DeliveryResult): PlainResponse {
  const status = OUTCOME_STATUS[result.outcome];
  const headers: Record<string, string> = { 'content-type': TEXT, 'cache-control': 'no-store' };
  if (result.outcome === 'method-not-allowed') headers['allow'] = 'POST';
  if (result.outcome === 'unsupported-encoding') headers['accept-encoding'] = 'identity'; // RFC 9110 §15.5.16
  if (result.outcome === 'in-flight' && result.retryAfterSeconds !== undefined) headers['retry-after'] = String(result.retryAfterSeconds);
  const claimed = result.outcome === 'in-flight' && result.retryAfterSeconds !== undefined;
  const message = claimed ? `Conflict: claimed; retry after ${result.retryAfterSeconds} s` : OUTCOME_MESSAGE[result.outcome];
  return { status, headers, body: result.message ?? message };
}

export function logDelivery(writeLog: LogWrite, result: DeliveryResult, started: number, late?: true): void {
  const entry: WebhookLogEntry = {
    event: 'webhook.delivery',
    outcome: result.outcome,
    status: OUTCOME_STATUS[result.outcome],
    ms: performance.now() - started,
  };
  if (result.eventId !== undefined) entry.eventId = result.eventId;
  if (result.type !== undefined) entry.type = result.type;
  if (result.confirmed !== undefined) entry.confirmed = result.confirmed;
  if (result.nudged !== undefined) entry.nudged = result.nudged;
  if (late) entry.late = true;
  if (result.error !== undefined) entry.error = logError(result.error);
  writeLog(entry);
}
