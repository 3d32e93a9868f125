import { env } from '../internal/env.js';
import { resolveLogger, type LogLevel, type LogWrite } from '../internal/log.js';
import type { ClientLogEntry, LogError } from '../logger.js';
import { CheckoutError } from '../errors.js';
import { describeLineError, jsonLine, lineFormat, stderrLine } from '../internal/stderr-log.js';
import { quote } from '../internal/quote.js';

/** Writes one entry; `undefined` means no logging. */
export type LogWriter = LogWrite<ClientLogEntry> | undefined;

/** The client's `logger` option as one writer, or the `CHECKOUT_LOG=debug` switch when none is given. */
export function logWriter(logger: unknown): LogWriter {
  return resolveLogger<ClientLogEntry>('logger', logger, {
    level: entryLevel,
    fallback: () => {
      if (env('CHECKOUT_LOG')?.trim().toLowerCase() !== 'debug') return undefined;
      return lineFormat() === 'json' ? (entry) => stderrLine(jsonLine(entryLevel(entry), entry)) : debugLine;
    },
  });
}

function entryLevel(entry: ClientLogEntry): LogLevel {
  if (entry.event === 'client.exchange') return 'info';
  if (entry.event === 'client.retry' || entry.error !== undefined || (entry.status !== undefined && entry.status >= 400)) return 'warn';
  return 'debug';
}

function debugLine(entry: ClientLogEntry): void {
  const parts = [
    `checkout-partner-sdk ${entry.event.slice('client.'.length)} ${entry.method} ${entry.path}`,
    `status=${entry.status ?? '-'}`,
    `ms=${Math.round(entry.ms)}`,
    `attempt=${entry.attempt}`,
  ];
  if (entry.requestId !== undefined) parts.push(`requestId=${quote(entry.requestId)}`);
  if (entry.retryInMs !== undefined) parts.push(`retryInMs=${Math.round(entry.retryInMs)}`);
  if (entry.error !== undefined) parts.push(`error=${describeLineError(entry.error)}`);
  try {
    console.error(parts.join(' '));
  } catch {
    // a closed stderr must not break a call
  }
}

export interface AttemptLog {
  start(attempt: number): void;
  end(attempt: number, response: Response | undefined, error: LogError | undefined): void;
}

/** One send's entries: `client.attempt` when an attempt ends, `client.retry` when one starts after another. */
export function attemptLog(
  write: (entry: ClientLogEntry) => void,
  lowerMethod: string,
  path: string,
  redact: (requestId: string) => string,
): AttemptLog {
  const method = lowerMethod.toUpperCase();
  let started = 0;
  let previous: { status: number | undefined; endedAt: number } | undefined;
  return {
    start(attempt: number): void {
      started = performance.now();
      if (previous !== undefined) {
        const waited = started - previous.endedAt;
        write({
          event: 'client.retry',
          method,
          path,
          status: previous.status,
          ms: waited,
          attempt,
          requestId: undefined,
          retryInMs: waited,
        });
      }
    },
    end(attempt: number, response: Response | undefined, error: LogError | undefined): void {
      const endedAt = performance.now();
      const status = response?.status;
      previous = { status, endedAt };
      // a service may echo the credentials in its request id
      const raw = response?.headers.get('x-request-id');
      const requestId = raw === null || raw === undefined ? undefined : redact(raw);
      write({
        event: 'client.attempt',
        method,
        path,
        status,
        ms: endedAt - started,
        attempt,
        requestId,
        ...(error === undefined ? {} : { error }),
      });
    },
  };
}

/** `error` as a log entry's `error`: the SDK's own errors as they are, anything else by its name only. */
export function clientLogError(error: unknown, otherwise: string): LogError {
  if (error instanceof CheckoutError) {
    const { status } = error as { status?: unknown };
    return typeof status === 'number' ? { name: error.name, message: error.message, status } : { name: error.name, message: error.message };
  }
  return { name: error instanceof Error ? error.name : 'AbortError', message: otherwise };
}
