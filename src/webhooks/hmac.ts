/**
 * How the webhook code computes HMAC-SHA256. The neutral entry wires Web Crypto
 * (`hmac.web.ts`), the `node` export condition wires node:crypto (`hmac.node.ts`); everything
 * else (parsing, the handler, the stores) is written once against this interface.
 */
export interface Hmac {
  /** The HMAC-SHA256 of `data` under `secret` (the secret's UTF-8 bytes are the key). */
  sign(secret: string, data: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /** Whether `mac` is the HMAC-SHA256 of `data` under `secret`, compared in constant time. */
  verify(secret: string, data: Uint8Array, mac: Uint8Array): boolean | Promise<boolean>;
}

/** How many imported keys each implementation keeps: enough for any rotation, bounded all the same. */
export const MAX_CACHED_KEYS = 64;

/**
 * A small LRU map from a secret to its imported key, so a key is made once per secret and not
 * once per delivery. Bounded, so code that signs with ever-new secrets cannot grow it.
 */
export class KeyCache<K> {
  readonly #keys = new Map<string, K>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get(secret: string, make: (secret: string) => K): K {
    let key = this.#keys.get(secret);
    if (key === undefined) {
      key = make(secret);
      if (this.#keys.size >= this.#max) {
        const oldest = this.#keys.keys().next();
        if (oldest.done !== true) this.#keys.delete(oldest.value);
      }
    } else {
      this.#keys.delete(secret); // re-inserted below as the most recently used
    }
    this.#keys.set(secret, key);
    return key;
  }

  delete(secret: string): void {
    this.#keys.delete(secret);
  }

  get size(): number {
    return this.#keys.size;
  }
}
