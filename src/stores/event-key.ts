import { toHex } from '../internal/hex.js';
export const MAX_PLAIN_ID_BYTES = 200;

const encoder = new TextEncoder();

/** An event id as a key: itself when short and well-formed, else hashed; an id starting with `sha256` too, so none poses as a hash. */
export async function eventKeySuffix(eventId: string): Promise<string> {
  // an existing key never changes: a store upgraded in place keeps its dedupe
  if (!eventId.isWellFormed()) return `sha256u:${await sha256Hex(encoder.encode(JSON.stringify(eventId)))}`;
  const bytes = encoder.encode(eventId);
  return bytes.length <= MAX_PLAIN_ID_BYTES && !eventId.startsWith('sha256') ? eventId : `sha256:${await sha256Hex(bytes)}`;
}

/** As {@link eventKeySuffix}, with an id holding a NUL hashed as well: PostgreSQL `text` cannot store it (Redis keys can). */
export async function eventRowId(eventId: string): Promise<string> {
  if (eventId.isWellFormed() && eventId.includes('\u0000')) return `sha256:${await sha256Hex(encoder.encode(eventId))}`;
  return eventKeySuffix(eventId);
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes);
  return toHex(new Uint8Array(digest));
}
