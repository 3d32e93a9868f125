/**
 * The redaction of a short value the service sent (its `x-request-id`, for a log entry), cheap when
 * no credential can be in it; else the full `Redactor` (every encoded form of a credential), a
 * module imported the first time such a value comes ({@link readyToRedact}), never at the SDK's import.
 */
import { lazy } from '../internal/lazy.js';
import { MIN_REDACTED_LENGTH, REDACTED } from './redacted.js';

const redactors = lazy(() => import('./redact.js'));
/** The full redactor, once imported. */
let Redactor: typeof import('./redact.js').Redactor | undefined;

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
 * Imports the full redactor when `text` may hold one of the credentials and it is not imported yet
 * (resolves once it is, or once its import failed); `undefined` when there is nothing to wait for.
 * Awaited before a log entry quotes `text`, so the entry is redacted exactly.
 */
export function readyToRedact(text: string | null | undefined, values: readonly (string | undefined)[]): Promise<void> | undefined {
  if (text === null || text === undefined || Redactor !== undefined || !mayHold(text, searched(values))) return undefined;
  return redactors().then(
    (module) => void (Redactor = module.Redactor),
    () => undefined,
  );
}

/**
 * A short value the service sent with the credentials redacted; `[redacted]` whole when it may hold
 * one and the full redactor is not imported (see {@link readyToRedact}).
 */
export function redactShort(text: string, values: readonly (string | undefined)[]): string {
  const found = searched(values);
  if (!mayHold(text, found)) return text;
  return Redactor === undefined ? REDACTED : new Redactor(found).text(text);
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
