import { toHex } from '../internal/hex.js';

/** The HMAC key label of the secret's fingerprint: changing it changes every store key. */
export const FINGERPRINT_LABEL = 'checkout-partner-sdk/token-store-key/v1:';

/**
 * `checkout-partner-sdk:token:<baseUrl>:<partnerId>:<fingerprint>`, the fingerprint the hex
 * HMAC-SHA256 of the secret under `FINGERPRINT_LABEL + partnerId`: another secret, another key.
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
