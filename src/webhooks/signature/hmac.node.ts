import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { KeyCache, MAX_CACHED_KEYS, type Hmac } from './hmac.js';

const keys = new KeyCache<KeyObject>(MAX_CACHED_KEYS);
const makeKey = (secret: string): KeyObject => createSecretKey(secret, 'utf8');

/** HMAC-SHA256 through node:crypto, synchronous, with a `KeyObject` made once per secret. */
export const nodeHmac: Hmac = {
  signHex(secret, data) {
    return createHmac('sha256', keys.get(secret, makeKey)).update(data).digest('hex');
  },
  macFromHex(hex) {
    return Buffer.from(hex, 'hex');
  },
  verify(secret, data, mac) {
    const expected = createHmac('sha256', keys.get(secret, makeKey)).update(data).digest();
    return expected.byteLength === mac.byteLength && timingSafeEqual(expected, mac);
  },
};
