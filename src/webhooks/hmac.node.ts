import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { KeyCache, MAX_CACHED_KEYS, type Hmac } from './hmac.js';

const keys = new KeyCache<KeyObject>(MAX_CACHED_KEYS);
const keyFor = (secret: string): KeyObject => keys.get(secret, (s) => createSecretKey(s, 'utf8'));

/** HMAC-SHA256 through node:crypto with a pre-made `KeyObject` per secret (several times faster than Web Crypto on Node). */
export const nodeHmac: Hmac = {
  sign(secret, data) {
    return createHmac('sha256', keyFor(secret)).update(data).digest();
  },
  verify(secret, data, mac) {
    const expected = createHmac('sha256', keyFor(secret)).update(data).digest();
    return mac.byteLength === expected.byteLength && timingSafeEqual(expected, mac);
  },
};
