import type { WebhookLogEntry, WebhookWarning } from 'checkout-partner-sdk/webhooks';

/**
 * A webhook logger object that pushes every delivery entry onto `entries` (in the order given,
 * whatever its level) and the warnings given at construction onto `warnings`. An object rather than
 * a function: a handler built without resolvers on purpose warns `never-confirms`, which a function
 * logger cannot take (it would go to the test run's stderr).
 */
export function keepEntries(entries: WebhookLogEntry[], warnings: WebhookWarning[] = []) {
  const keep = (entry: WebhookLogEntry) => void entries.push(entry);
  return {
    info: keep,
    error: keep,
    warn: (entry: WebhookLogEntry | WebhookWarning) => void ('warning' in entry ? warnings.push(entry) : entries.push(entry)),
  };
}

/** {@link keepEntries} on new arrays. */
export function memoryLogger() {
  const entries: WebhookLogEntry[] = [];
  const warnings: WebhookWarning[] = [];
  return { entries, warnings, logger: keepEntries(entries, warnings) };
}
