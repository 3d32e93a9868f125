/**
 * The redaction of a short value the service sent (its `x-request-id`, for a log entry), cheap when
 * no credential can be in it. The full {@link Redactor} (every encoded form of a credential) lives
 * in redact.ts, imported at the first value that needs it ({@link redactorReady}).
 */
import type { Redactor } from './redact.js';
import { MIN_REDACTED_LENGTH, REDACTED } from './redacted.js';

let redactor: typeof Redactor | undefined;
let loading: Promise<void> | undefined;

/** The credentials in `values` that are long enough to search for. */
function searched(values: readonly (string | undefined)[]): string[] {
  return values.filter((value): value is string => value !== undefined && value.length >= MIN_REDACTED_LENGTH);
}

/**
 * Whether `text` may hold one of the credentials: as sent, or (when it has a `%`, `\\` or `+`) in
 * an encoded form. A value with none of these and no credential as sent cannot hold one.
 */
function mayHold(text: string, found: readonly string[]): boolean {
  return found.length > 0 && (/[%\\+]/.test(text) || found.some((value) => text.includes(value)));
}

/**
 * `undefined` when {@link redactShort} can redact `text` now, else a promise (which never rejects)
 * that resolves once it can: await it before building the log entry.
 */
export function redactorReady(text: string | null | undefined, values: readonly (string | undefined)[]): Promise<void> | undefined {
  if (redactor !== undefined || text === null || text === undefined || !mayHold(text, searched(values))) return undefined;
  return (loading ??= import('./redact.js').then(
    (module) => {
      redactor = module.Redactor;
    },
    () => {
      loading = undefined; // redactShort then redacts the whole value; the next one tries again
    },
  ));
}

/**
 * A short value the service sent with the credentials redacted. Should the full redactor not be
 * loaded (see {@link redactorReady}), a value that may hold a credential reads `[redacted]` whole.
 */
export function redactShort(text: string, values: readonly (string | undefined)[]): string {
  const found = searched(values);
  if (!mayHold(text, found)) return text;
  return redactor === undefined ? REDACTED : new redactor(found).text(text);
}

/** The credential values a request carried (its Bearer token, the partner secret) or may see quoted back (`alsoRedact`). */
export function credentialValues({ headers, alsoRedact }: { headers: Record<string, string>; alsoRedact?: string | undefined }): string[] {
  const found: string[] = alsoRedact === undefined ? [] : [alsoRedact];
  const auth = headers.authorization;
  if (auth !== undefined) found.push(auth.replace(/^Bearer /, ''));
  const secret = headers['x-partner-secret'];
  if (secret !== undefined) found.push(secret);
  return found;
}
