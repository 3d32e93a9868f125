import { hexBytes, toHex, utf8 } from './bytes.js';
import { KeyCache, MAX_CACHED_KEYS, type Hmac } from './hmac.js';

const encoder = new TextEncoder();
const keys = new KeyCache<Promise<CryptoKey>>(MAX_CACHED_KEYS);

/** The secret's HMAC key, imported once and cached; a failed import is not cached. */
function importKey(secret: string): Promise<CryptoKey> {
  const key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  key.catch(() => keys.delete(secret));
  return key;
}

/** Web Crypto wants bytes backed by an `ArrayBuffer`; a view of a `SharedArrayBuffer` is copied. */
function bufferSource(data: Uint8Array): Uint8Array<ArrayBuffer> {
  return data.buffer instanceof ArrayBuffer ? (data as Uint8Array<ArrayBuffer>) : new Uint8Array(data);
}

/** HMAC-SHA256 through Web Crypto (`crypto.subtle`): runs on every runtime, no `node:` import. */
export const webCryptoHmac: Hmac = {
  async signHex(secret, data) {
    const bytes = bufferSource(utf8(data)); // before the await: the bytes as they are now
    return toHex(new Uint8Array(await crypto.subtle.sign('HMAC', await keys.get(secret, importKey), bytes)));
  },
  macFromHex: hexBytes,
  async verify(secret, data, mac) {
    const bytes = bufferSource(utf8(data));
    // subtle.verify compares in constant time
    return crypto.subtle.verify('HMAC', await keys.get(secret, importKey), bufferSource(mac), bytes);
  },
};
