import { afterAll, describe, expect, it } from 'vitest';

// Next.js's Edge runtime has no AbortSignal.any: the SDK links a call's signals by listeners there,
// aborts with the caller's reason, and lets go of a long-lived caller signal once the call ends.
// Gone before the SDK and ky are imported, as in that runtime.
const native = AbortSignal.any;
Reflect.deleteProperty(AbortSignal, 'any');
const { CheckoutClient } = await import('checkout-partner-sdk');
afterAll(() => {
  AbortSignal.any = native;
});

const TOKEN = JSON.stringify({ accessToken: 'tok-1', tokenType: 'Bearer', expiresIn: 3600 });
const json = (body: string) => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });

function client(): InstanceType<typeof CheckoutClient> {
  const fetch = async (input: RequestInfo | URL) => {
    const url = input instanceof Request ? input.url : String(input);
    return json(url.endsWith('/auth/token') ? TOKEN : JSON.stringify({ externalId: 'o-1', settlement: { status: 'Pending' } }));
  };
  return new CheckoutClient({ baseUrl: 'http://127.0.0.1:9', partnerId: 'p-1', partnerSecret: 's', fetch });
}

/** A caller signal that counts the abort listeners it holds. */
function countedSignal(): { controller: AbortController; held: () => number } {
  const controller = new AbortController();
  const listeners = new Set<unknown>();
  const { signal } = controller;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, listener: EventListenerOrEventListenerObject, options?: AddEventListenerOptions) => {
    if (type === 'abort') listeners.add(listener);
    add(type, listener, options);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((type: string, listener: EventListenerOrEventListenerObject) => {
    if (type === 'abort') listeners.delete(listener);
    remove(type, listener);
  }) as typeof signal.removeEventListener;
  return { controller, held: () => listeners.size };
}

describe('without AbortSignal.any (the Edge runtime)', () => {
  it("waitForOrder rejects with the caller's reason when the caller aborts", async () => {
    expect(typeof AbortSignal.any).toBe('undefined');
    const controller = new AbortController();
    const waiting = client().waitForOrder('o-1', () => false, { signal: controller.signal, timeoutMs: 60_000, intervalMs: 10 });
    controller.abort(new Error('caller gave up'));
    await expect(waiting).rejects.toThrow('caller gave up');
  });

  it('a long-lived caller signal holds no listener once the calls ended', async () => {
    const { controller, held } = countedSignal();
    const sdk = client();
    for (let i = 0; i < 5; i += 1) {
      await sdk.getAccessToken({ signal: controller.signal, timeoutMs: 5_000 });
      await sdk.waitForOrder('o-1', () => true, { signal: controller.signal, timeoutMs: 5_000 });
    }
    expect(held()).toBe(0);
  });
});
