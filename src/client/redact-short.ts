/**
 * The redaction of a short value the service sent (its `x-request-id`, for a log entry), cheap when
 * no credential can be in it; else the full {@link Redactor} (every encoded form of a credential).
 */
import { Redactor } from './redact.js';
import { MIN_REDACTED_LENGTH } from './redacted.js';

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

/** A short value the service sent with the credentials redacted. */
export function redactShort(text: string, values: readonly (string | undefined)[]): string {
  const found = searched(values);
  if (!mayHold(text, found)) return text;
  return new Redactor(found).text(text);
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
