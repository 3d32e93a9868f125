import { typeName } from '../../internal/type-name.js';

/** A payload as the public functions accept it: the raw body as text or bytes. */
export type PayloadInput = string | Uint8Array | ArrayBuffer;

/** The payload as an HMAC implementation takes it (a string as it is, bytes as a `Uint8Array` view), else a `TypeError`. */
export function payloadData(payload: unknown, name = 'payload'): string | Uint8Array {
  if (typeof payload === 'string' || payload instanceof Uint8Array) return payload;
  if (payload instanceof ArrayBuffer) return new Uint8Array(payload);
  if (ArrayBuffer.isView(payload)) return new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
  throw new TypeError(`${name} must be a string, a Uint8Array or an ArrayBuffer, got ${typeName(payload)}`);
}

const encoder = new TextEncoder();

export function utf8(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? encoder.encode(data) : data;
}

export { toHex } from '../../internal/hex.js';

const SIGNATURE = /^(?:sha256=)?[0-9a-f]{64}$/;

/** The 64 hex characters of a signature header value (`sha256=<hex>` or bare lowercase hex), else `undefined`. */
export function signatureHex(value: string): string | undefined {
  return SIGNATURE.test(value) ? value.slice(-64) : undefined;
}

/** The bytes of lowercase hex already checked by {@link signatureHex} (`0-9` and `a-f` only, even length). */
export function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < bytes.length; i += 1) {
    const high = hex.charCodeAt(2 * i);
    const low = hex.charCodeAt(2 * i + 1);
    // '0'-'9' are 48-57, 'a'-'f' are 97-102
    bytes[i] = ((high < 97 ? high - 48 : high - 87) << 4) | (low < 97 ? low - 48 : low - 87);
  }
  return bytes;
}
