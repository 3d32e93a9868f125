import { toHex } from '../internal/hex.js';
/** Event ids up to this many UTF-8 bytes are used in the key as they are; longer ones are hashed. */
export const MAX_PLAIN_ID_BYTES = 200;

const encoder = new TextEncoder();

/**
 * The part of an event's key after the prefix (Redis) or the whole key (PostgreSQL, through
 * {@link eventRowId}): the id itself when it is well-formed, at most {@link MAX_PLAIN_ID_BYTES}
 * UTF-8 bytes and does not start with `sha256`; else `sha256:<hex>` of its UTF-8 bytes. An id with
 * a lone surrogate (which UTF-8 cannot carry, so two such ids could meet in one key) becomes
 * `sha256u:<hex>` of its JSON form, which escapes the surrogate.
 *
 * Keys that start with `sha256` are hashed keys only: a literal id that starts like one (say
 * `sha256:<hex of a long id>`, sent by a sender or an attacker) is hashed too, so it can no longer
 * be taken for that long id (a collision would need a SHA-256 preimage). Every other id keeps the
 * key it always had, so stores upgraded in place keep their dedupe.
 */
export async function eventKeySuffix(eventId: string): Promise<string> {
  if (!eventId.isWellFormed()) return `sha256u:${await sha256Hex(encoder.encode(JSON.stringify(eventId)))}`;
  const bytes = encoder.encode(eventId);
  return bytes.length <= MAX_PLAIN_ID_BYTES && !eventId.startsWith('sha256') ? eventId : `sha256:${await sha256Hex(bytes)}`;
}

/**
 * An event id as a PostgreSQL `text` key: {@link eventKeySuffix}, and `sha256:<hex>` of its UTF-8
 * bytes when it holds a NUL character, which `text` cannot store (PostgreSQL refuses the statement).
 * Redis keys are binary-safe, so there a NUL id keeps its plain key.
 */
export async function eventRowId(eventId: string): Promise<string> {
  if (eventId.isWellFormed() && eventId.includes('\u0000')) return `sha256:${await sha256Hex(encoder.encode(eventId))}`;
  return eventKeySuffix(eventId);
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes);
  return toHex(new Uint8Array(digest));
}
