import { resolveLogger, type LogLevel } from '../../internal/log.js';
import { quote } from '../../internal/quote.js';
import { debugLogging, describeLineError, jsonLine, lineFormat, stderrLine } from '../../internal/stderr-log.js';
import type { WebhookLogEntry, WebhookWarning } from '../../logger.js';
import type { WebhookOutcome } from './outcome.js';

export { plainError as logError } from '../../internal/log.js';

/** What the handler logs: one entry per delivery, and a warning at construction. */
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

/**
 * Whether a delivery failed: `onEvent`, a read, the store, or the raw body, or it was answered 503
 * at `responseTimeoutMs` while its verified event was being handled (what is written to stderr by default).
 */
function isFailure(entry: WebhookLogEntry): boolean {
  // a `handled` entry with an error: onEvent ran but the store could not mark the event done
  if (LEVEL[entry.outcome] === 'error' || (entry.outcome === 'handled' && entry.error !== undefined)) return true;
  // a hung onEvent or read would otherwise leave no trace at all; a timeout without an eventId is
  // a body still arriving (a slow sender, which anyone can be), not a failure of the handling
  return entry.outcome === 'timeout' && entry.eventId !== undefined && entry.late !== true;
}

/**
 * The `logger` option as one writer, resolved once: the partner's logger (a throw or a rejection is
 * ignored), nothing for `false`, or, without a logger, one stderr line per failed delivery (per
 * delivery with `CHECKOUT_LOG=debug`, any case) and per warning. A `TypeError` for anything else.
 */
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

/**
 * One line for stderr: `checkout-partner-sdk webhook <outcome> status=… eventId="…" type="…" ms=…`
 * and the error's name and message. Every value from outside is quoted with its control characters
 * escaped, so an event type or an error message cannot forge another line; never a secret or the body.
 */
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
