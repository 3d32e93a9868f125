import { describe, expect, it } from 'vitest';
import * as node from 'checkout-partner-sdk/webhooks';
// the Web Crypto build: the `default` condition of ./webhooks (the package name resolves to the node one here)
import * as web from '../../src/webhooks/index.js';

// Each entry point's handler verifies with the signing functions of its own build, and both builds
// sign alike: a body signed by either is answered 200 by the handler of the other.

const client = {
  getOrderByExternalId: () => Promise.reject(new Error('unused')),
  getWithdrawalByExternalId: () => Promise.reject(new Error('unused')),
};

describe('entry point builds', () => {
  it.each([
    ['Web Crypto', web, node],
    ['node:crypto', node, web],
  ] as const)('the %s handler verifies what either build signed', async (_, entry, other) => {
    // no resolvers on purpose: no construction warning
    const handler = entry.createWebhookHandler({ secret: 'whsec-entry', client, onEvent: () => undefined, logger: false });
    for (const [i, sign] of [entry.signPayload, other.signPayload].entries()) {
      const body = JSON.stringify({ eventId: `e-entry-${i}`, type: 'custom' });
      const request = new Request('https://partner.test/webhooks', {
        method: 'POST',
        headers: { 'x-provider-signature': await sign(body, 'whsec-entry') },
        body,
      });
      expect((await handler.handle(request)).status).toBe(200);
    }
    const forged = new Request('https://partner.test/webhooks', {
      method: 'POST',
      headers: { 'x-provider-signature': await other.signPayload('{}', 'whsec-other') },
      body: '{}',
    });
    expect((await handler.handle(forged)).status).toBe(401);
  });
});
