import { KeyCache, MAX_CACHED_KEYS, type Hmac } from './hmac.js';

const encoder = new TextEncoder();
const keys = new KeyCache<Promise<CryptoKey>>(MAX_CACHED_KEYS);

/** The secret's HMAC key, imported once and cached; a failed import is not cached. */
function keyFor(secret: string): Promise<CryptoKey> {
  return keys.get(secret, () => {
    const key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    key.catch(() => keys.delete(secret));
    return key;
  });
}

/** Web Crypto wants bytes backed by an `ArrayBuffer`; a view of a `SharedArrayBuffer` is copied. */
function bufferSource(data: Uint8Array): Uint8Array<ArrayBuffer> {
  return data.buffer instanceof ArrayBuffer ? (data as Uint8Array<ArrayBuffer>) : new Uint8Array(data);
}

/** HMAC-SHA256 through Web Crypto (`crypto.subtle`): runs on every runtime, no `node:` import. */
export const webCryptoHmac: Hmac = {
  async sign(secret, data) {
    return new Uint8Array(await crypto.subtle.sign('HMAC', await keyFor(secret), bufferSource(data)));
  },
  async verify(secret, data, mac) {
    // subtle.verify compares in constant time
    return crypto.subtle.verify('HMAC', await keyFor(secret), bufferSource(mac), bufferSource(data));
  },
};
