import { resolveLogger, type LogLevel } from '../../internal/log.js';
import { quote } from '../../internal/quote.js';
import { debugLogging, describeLineError, jsonLine, lineFormat, stderrLine } from '../../internal/stderr-log.js';
import type { WebhookLogEntry, WebhookWarning } from '../../logger.js';
import type { WebhookOutcome } from './outcome.js';

export { plainError as logError } from '../../internal/log.js';

export type WebhookLog = WebhookLogEntry | WebhookWarning;

const LEVEL: Readonly<Record<WebhookOutcome, LogLevel>> = {
  'method-not-allowed': 'warn',
  'unsupported-encoding': 'warn',
  handled: 'info',
  duplicate: 'info',
  'in-flight': 'info',
  'bad-signature': 'warn',
  invalid: 'warn',
  'too-large': 'warn',
  aborted: 'warn',
  draining: 'warn',
  timeout: 'warn',
  failed: 'error',
  misconfigured: 'error',
  'store-unavailable': 'error',
  'secret-unavailable': 'error',
};

/** Writes one entry, never throwing. */
export type LogWrite = (entry: WebhookLog) => void;

function isFailure(entry: WebhookLogEntry): boolean {
  // a `handled` entry with an error: onEvent ran but the store could not mark the event done
  if (LEVEL[entry.outcome] === 'error' || (entry.outcome === 'handled' && entry.error !== undefined)) return true;
  // a timeout with an eventId is a hung onEvent or read; without one, a slow sender, which anyone can be
  return entry.outcome === 'timeout' && entry.eventId !== undefined && entry.late !== true;
}

export function logWriter(logger: unknown): LogWrite {
  const write = resolveLogger<WebhookLog>('logger', logger, {
    level: (entry) => (entry.event === 'webhook.warning' ? 'warn' : LEVEL[entry.outcome]),
    fallback: () => {
      const every = debugLogging();
      const json = lineFormat() === 'json';
      return (entry) => {
        if (entry.event === 'webhook.warning') {
          stderrLine(json ? jsonLine('warn', entry) : `checkout-partner-sdk webhook warning ${entry.warning}: ${entry.message}`);
        } else if (every || isFailure(entry)) stderrLine(json ? jsonLine(LEVEL[entry.outcome], entry) : logLine(entry));
      };
    },
  });
  return write ?? (() => undefined);
}

/** One stderr line: values from outside quoted and escaped, so none can forge another line; never a secret or the body. */
export function logLine(entry: WebhookLogEntry): string {
  const parts = [`checkout-partner-sdk webhook ${entry.outcome}`, `status=${entry.status}`];
  if (entry.eventId !== undefined) parts.push(`eventId=${quote(entry.eventId)}`);
  if (entry.type !== undefined) parts.push(`type=${quote(entry.type)}`);
  parts.push(`ms=${Math.round(entry.ms)}`);
  if (entry.confirmed !== undefined) parts.push(`confirmed=${entry.confirmed}`);
  if (entry.nudged !== undefined) parts.push(`nudged=${entry.nudged}`);
  if (entry.late === true) parts.push('late');
  if (entry.error !== undefined) parts.push(`error=${describeLineError(entry.error)}`);
  return parts.join(' ');
}
