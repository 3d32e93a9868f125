import { describe, expect, it, vi } from 'vitest';

// Each entry point builds its signing functions once, at import, and the handler factory shares them.

const built = vi.hoisted(() => ({ count: 0 }));

vi.mock('../../src/webhooks/signature/signature.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/webhooks/signature/signature.js')>();
  return {
    ...actual,
    createSignatures: (...args: Parameters<typeof actual.createSignatures>) => {
      built.count += 1;
      return actual.createSignatures(...args);
    },
  };
});

describe('entry point build', () => {
  it('builds the signing functions once per entry point and the handler uses them', async () => {
    // the Web Crypto build (index.ts), then the node:crypto one (what the package name is on Node)
    const webhooks = await import('../../src/webhooks/index.js');
    expect(built.count).toBe(1);
    await import('checkout-partner-sdk/webhooks');
    expect(built.count).toBe(2);

    // the shared functions work: the Web Crypto handler verifies what Web Crypto's signPayload signed
    const handler = webhooks.createWebhookHandler({
      secret: 'whsec-entry',
      client: { getOrderByExternalId: () => Promise.reject(new Error('unused')), getWithdrawalByExternalId: () => Promise.reject(new Error('unused')) },
      onEvent: () => undefined,
      logger: false, // no resolvers on purpose: no construction warning
    });
    const body = JSON.stringify({ eventId: 'e-entry', type: 'custom' });
    const request = new Request('https://partner.test/webhooks', {
      method: 'POST',
      headers: { 'x-provider-signature': await webhooks.signPayload(body, 'whsec-entry') },
      body,
    });
    expect((await handler.handle(request)).status).toBe(200);
    expect(built.count).toBe(2);
  });
});
