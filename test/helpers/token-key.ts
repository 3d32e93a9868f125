import { createHmac } from 'node:crypto';

/**
 * The key CheckoutClient asks its token store for, computed here from docs/client.md "The token store key"
 * (node:crypto, independently of the SDK's Web Crypto code): base URL, partner id and the lowercase
 * hex HMAC-SHA256 of the secret under `checkout-partner-sdk/token-store-key/v1:<partnerId>`.
 */
export function tokenStoreKey(baseUrl: string, partnerId: string, secret: string): string {
  const fingerprint = createHmac('sha256', `checkout-partner-sdk/token-store-key/v1:${partnerId}`).update(secret).digest('hex');
  return `checkout-partner-sdk:token:${baseUrl}:${partnerId}:${fingerprint}`;
}
