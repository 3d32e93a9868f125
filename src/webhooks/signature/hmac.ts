/** How the webhook code computes HMAC-SHA256: `data` is the payload as received (a string means its UTF-8); answers may be promises. */
export interface Hmac {
  /** The lowercase hex HMAC-SHA256 of `data` under `secret` (the secret's UTF-8 bytes are the key). */
  signHex(secret: string, data: string | Uint8Array): string | Promise<string>;
  macFromHex(hex: string): Uint8Array;
  /** Whether `mac` is the HMAC-SHA256 of `data` under `secret`, compared in constant time. */
  verify(secret: string, data: string | Uint8Array, mac: Uint8Array): boolean | Promise<boolean>;
}

/** How many imported keys each implementation keeps: enough for any rotation, bounded all the same. */
export const MAX_CACHED_KEYS = 64;

interface Entry<K> {
  readonly key: K;
  /** Set on every hit, cleared when the entry gets its second chance at eviction. */
  used: boolean;
}

/** A bounded map from a secret to its imported key, made once per secret; eviction is "second chance" (CLOCK). */
export class KeyCache<K> {
  readonly #entries = new Map<string, Entry<K>>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get(secret: string, make: (secret: string) => K): K {
    const hit = this.#entries.get(secret);
    if (hit !== undefined) {
      hit.used = true;
      return hit.key;
    }
    const key = make(secret);
    if (this.#entries.size >= this.#max) this.#evictOne();
    this.#entries.set(secret, { key, used: false });
    return key;
  }

  delete(secret: string): void {
    this.#entries.delete(secret);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Drops the oldest entry not used since its last chance; at most one pass over the map. */
  #evictOne(): void {
    for (let turns = this.#entries.size; turns >= 0; turns -= 1) {
      const oldest = this.#entries.entries().next();
      if (oldest.done === true) return;
      const [secret, entry] = oldest.value;
      this.#entries.delete(secret);
      if (!entry.used || turns === 0) return;
      entry.used = false;
      this.#entries.set(secret, entry); // a second chance, at the young end
    }
  }
}
