import { toHex } from '../internal/hex.js';

/**
 * The HMAC key label of the secret's fingerprint, followed by the partner id (so two partners with
 * the same secret still get different fingerprints). Changing it changes every store key.
 */
export const FINGERPRINT_LABEL = 'checkout-partner-sdk/token-store-key/v1:';

/**
 * The key a {@link TokenStore} keeps a client's token under:
 * `checkout-partner-sdk:token:<baseUrl>:<partnerId>:<fingerprint>`, where the fingerprint is the
 * lowercase hex HMAC-SHA256 of the partner secret under the key `FINGERPRINT_LABEL + partnerId`.
 * A client with another secret gets another key, so it never receives a token it did not earn;
 * the secret itself cannot be read back from the key. Web Crypto, so it runs in every runtime.
 */
export async function tokenStoreKey(baseUrl: string, partnerId: string, secret: string): Promise<string> {
  const encoder = new TextEncoder();
  const hmacKey = await globalThis.crypto.subtle.importKey(
    'raw',
    encoder.encode(`${FINGERPRINT_LABEL}${partnerId}`),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await globalThis.crypto.subtle.sign('HMAC', hmacKey, encoder.encode(secret));
  return `checkout-partner-sdk:token:${baseUrl}:${partnerId}:${toHex(new Uint8Array(mac))}`;
}
