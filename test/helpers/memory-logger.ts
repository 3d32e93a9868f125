import type { LogEntry } from 'checkout-partner-sdk';

type WebhookLogEntry = Extract<LogEntry, { event: 'webhook.delivery' }>;
type WebhookWarning = Extract<LogEntry, { event: 'webhook.warning' }>;

/**
 * A webhook logger object that pushes every delivery entry onto `entries` (in the order given,
 * whatever its level) and the warnings given at construction onto `warnings` (a handler built
 * without resolvers on purpose warns `never-confirms`).
 */
export function keepEntries(entries: WebhookLogEntry[], warnings: WebhookWarning[] = []) {
  const keep = (entry: WebhookLogEntry | WebhookWarning) => {
    if (entry.event === 'webhook.warning') warnings.push(entry);
    else entries.push(entry);
  };
  return { info: keep, warn: keep, error: keep };
}

/** {@link keepEntries} on new arrays. */
export function memoryLogger() {
  const entries: WebhookLogEntry[] = [];
  const warnings: WebhookWarning[] = [];
  return { entries, warnings, logger: keepEntries(entries, warnings) };
}
