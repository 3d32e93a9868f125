import { toHex } from '../internal/hex.js';
/** Event ids up to this many UTF-8 bytes are used in the key as they are; longer ones are hashed. */
export const MAX_PLAIN_ID_BYTES = 200;

const encoder = new TextEncoder();

/**
 * The part of an event's key after the prefix: the id itself when it is well-formed and at most
 * {@link MAX_PLAIN_ID_BYTES} UTF-8 bytes, else `sha256:<hex>` of its UTF-8 bytes. An id with a lone
 * surrogate (which UTF-8 cannot carry, so two such ids could meet in one key) becomes
 * `sha256u:<hex>` of its JSON form, which escapes the surrogate. A plain id that looks like a hashed
 * one would only collide with a SHA-256 preimage.
 */
export async function eventKeySuffix(eventId: string): Promise<string> {
  if (!eventId.isWellFormed()) return `sha256u:${await sha256Hex(encoder.encode(JSON.stringify(eventId)))}`;
  const bytes = encoder.encode(eventId);
  return bytes.length <= MAX_PLAIN_ID_BYTES ? eventId : `sha256:${await sha256Hex(bytes)}`;
}

/**
 * An event id as a PostgreSQL `text` key: {@link eventKeySuffix}, and `sha256:<hex>` of its UTF-8
 * bytes when it holds a NUL character, which `text` cannot store (PostgreSQL refuses the statement),
 * or when it starts with `sha256` (so no literal id can equal another id's hash).
 */
export async function eventRowId(eventId: string): Promise<string> {
  // a literal id that starts like a hashed one is hashed too, so hashed keys are their own
  // namespace: `sha256:<hex of a long id>` sent as an id can no longer be taken for that long id
  if (eventId.isWellFormed() && (eventId.includes('\u0000') || eventId.startsWith('sha256'))) return `sha256:${await sha256Hex(encoder.encode(eventId))}`;
  return eventKeySuffix(eventId);
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes);
  return toHex(new Uint8Array(digest));
}
