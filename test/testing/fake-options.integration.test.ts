import http from 'node:http';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createFakeCheckout, type FakePartner } from 'checkout-partner-sdk/testing';
import { describe, expect, it } from 'vitest';

const partner = { partnerId: 'p-1', partnerSecret: 's-1' };
const tokenRequest = (headers: Record<string, string> = { 'x-partner-id': 'p-1', 'x-partner-secret': 's-1' }) =>
  new Request('https://checkout.test/api/v1/partner-api/auth/token', { method: 'POST', headers });

describe('createFakeCheckout options', () => {
  it.each([
    ['options that are not an object', 'nope'],
    ['partners that are not an array', { partners: {} }],
    ['a partner without partnerId', { partners: [{ partnerSecret: 's' }] }],
    ['a partner with an empty secret', { partners: [{ partnerId: 'p', partnerSecret: '' }] }],
    ['a non-boolean enabled flag', { partners: [{ ...partner, enabled: 'yes' }] }],
    ['the same partnerId twice', { partners: [partner, partner] }],
    ['a zero tokenTtlSeconds', { tokenTtlSeconds: 0 }],
    ['a fractional tokenTtlSeconds', { tokenTtlSeconds: 1.5 }],
    ['a negative maxLoggedRequests', { maxLoggedRequests: -1 }],
  ])('rejects %s with a TypeError', (_what, options) => {
    expect(() => createFakeCheckout(options as never)).toThrow(TypeError);
  });

  it('never puts a partner secret in a validation message', () => {
    expect(() => createFakeCheckout({ partners: [{ partnerId: '', partnerSecret: 'top-secret' }] })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('top-secret') }),
    );
  });

  it('issues tokens with the configured lifetime', async () => {
    const fake = createFakeCheckout({ partners: [partner], tokenTtlSeconds: 42 });
    const body = (await (await fake.fetch(tokenRequest())).json()) as { expiresIn: number };
    expect(body.expiresIn).toBe(42);
  });

  it('keeps at most maxLoggedRequests entries, the newest', async () => {
    const fake = createFakeCheckout({ partners: [partner], maxLoggedRequests: 2 });
    for (const id of ['a', 'b', 'c']) await fake.fetch(`https://checkout.test/api/v1/partner-api/orders/by-external-id/${id}`);
    expect(fake.requests.map((r) => r.path.at(-1))).toEqual(['b', 'c']);
    expect(fake.stats.requests).toBe(3);
  });
});

describe('records set and advanced by the test', () => {
  const fake = createFakeCheckout({ partners: [partner] });

  it.each([
    ['an order without externalId', () => fake.setOrder({ currency: 'USDT' } as never)],
    ['an order with a numeric tradeId', () => fake.setOrder({ externalId: 'o', settlement: { tradeId: 7 } } as never)],
    ['an order with an empty externalId', () => fake.setOrder({ externalId: '' })],
    ['a withdrawal without status', () => fake.setWithdrawal({ externalId: 'w' } as never)],
    ['an order that is not plain data', () => fake.setOrder({ externalId: 'o', f: () => 1 })],
    ['a change to an unknown order', () => fake.settleOrder('missing')],
    ['a change to an unknown withdrawal', () => fake.completeWithdrawal('missing')],
    ['a negative afterReads', () => fake.settleOrder('o-1', { afterReads: -1 })],
    ['an empty tradeId', () => fake.settleOrder('o-1', { tradeId: '' })],
    ['a patch breaking the schema', () => fake.updateWithdrawal('w-1', { status: 5 } as never)],
    ['a deferred patch breaking the schema', () => fake.updateOrder('o-1', { currency: 5 } as never, { afterReads: 3 })],
    ['an update of an unknown partner', () => fake.updatePartner('who', { enabled: false })],
  ])('rejects %s with a TypeError', (_what, act) => {
    fake.setOrder({ externalId: 'o-1', settlement: { status: 'Pending', tradeId: 't-1' } });
    fake.setWithdrawal({ externalId: 'w-1', status: 'Processing' });
    expect(act).toThrow(TypeError);
  });

  it('hands out copies: mutating what it returns changes nothing', () => {
    const order = fake.setOrder({ externalId: 'o-2', settlement: { status: 'Pending', tradeId: 't' } });
    order.settlement!.status = 'Settled';
    fake.getOrder('o-2')!.externalId = 'changed';
    expect(fake.getOrder('o-2')).toEqual({ externalId: 'o-2', settlement: { status: 'Pending', tradeId: 't' } });
  });

  it('merges settlement field by field, sets a tradeId, and removes fields set to undefined', () => {
    fake.setOrder({ externalId: 'o-3', currency: 'USDT', note: 'x', settlement: { status: 'Pending', tradeId: null } });
    fake.settleOrder('o-3', { tradeId: 't-9' });
    fake.updateOrder('o-3', { note: undefined });
    expect(fake.getOrder('o-3')).toEqual({ externalId: 'o-3', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-9' } });
  });

  it('applies deferred changes in order, each after its own number of reads', async () => {
    fake.setWithdrawal({ externalId: 'w-3', status: 'Created' });
    fake.updateWithdrawal('w-3', { status: 'Processing' }, { afterReads: 1 });
    fake.completeWithdrawal('w-3', { afterReads: 2 });
    const token = ((await (await fake.fetch(tokenRequest())).json()) as { accessToken: string }).accessToken;
    const seen: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const response = await fake.fetch('https://checkout.test/api/v1/partner-api/withdrawals/by-external-id/w-3', {
        headers: { authorization: `Bearer ${token}` },
      });
      seen.push(((await response.json()) as { status: string }).status);
    }
    expect(seen).toEqual(['Created', 'Processing', 'Completed', 'Completed']);
  });

  it('deleteOrder makes the GET answer 404; setOrder replaces and drops pending changes', async () => {
    fake.setOrder({ externalId: 'o-4', settlement: { status: 'Pending' } });
    fake.settleOrder('o-4', { afterReads: 1 });
    fake.setOrder({ externalId: 'o-4', settlement: { status: 'Failed' } });
    const c = new CheckoutClient({ baseUrl: 'https://checkout.test', ...partner, fetch: fake.fetch });
    for (let i = 0; i < 3; i += 1) expect((await c.getOrderByExternalId('o-4')).settlement?.status).toBe('Failed');
    expect(fake.deleteOrder('o-4')).toBe(true);
    await expect(c.getOrderByExternalId('o-4')).rejects.toMatchObject({ name: 'NotFoundError' });
  });
});

describe('partners, faults and reset', () => {
  it('rotates a secret with updatePartner: the old one answers 401, the new one 200', async () => {
    const fake = createFakeCheckout({ partners: [partner] });
    fake.updatePartner('p-1', { partnerSecret: 's-2' });
    expect((await fake.fetch(tokenRequest())).status).toBe(401);
    expect((await fake.fetch(tokenRequest({ 'x-partner-id': 'p-1', 'x-partner-secret': 's-2' }))).status).toBe(200);
  });

  it('setPartner adds an account; reset() restores the first partners and clears everything', async () => {
    const fake = createFakeCheckout({ partners: [partner] });
    const extra: FakePartner = { partnerId: 'p-2', partnerSecret: 's-x' };
    fake.setPartner(extra);
    fake.setOrder({ externalId: 'o-1' });
    fake.failNext(5, 500);
    fake.setDelay(10);
    fake.reset();
    expect(fake.pendingFaults).toBe(0);
    expect(fake.getOrder('o-1')).toBeUndefined();
    expect((await fake.fetch(tokenRequest({ 'x-partner-id': 'p-2', 'x-partner-secret': 's-x' }))).status).toBe(401);
    expect((await fake.fetch(tokenRequest())).status).toBe(200);
    const { statusReads, ...counts } = fake.stats;
    expect(counts).toEqual({
      requests: 2,
      tokenExchanges: 2,
      tokensIssued: 1,
      businessCalls: 0,
      unauthorized: 1,
      notFound: 0,
      faultsInjected: 0,
    });
    for (const reads of Object.values(statusReads)) expect(reads).toEqual({ total: 0, byExternalId: {} });
  });

  it('reset() revokes the tokens issued before it', async () => {
    const fake = createFakeCheckout({ partners: [partner] });
    const token = ((await (await fake.fetch(tokenRequest())).json()) as { accessToken: string }).accessToken;
    fake.reset();
    const me = await fake.fetch('https://checkout.test/api/v1/partner-api/auth/me', { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(401);
  });

  it.each([
    ['a zero count', () => createFakeCheckout().failNext(0, 503)],
    ['a status out of range', () => createFakeCheckout().failNext(1, 99)],
    ['a text status', () => createFakeCheckout().failNext(1, 'boom' as never)],
    ['a negative retryAfter', () => createFakeCheckout().failNext(1, 429, { retryAfter: -1 })],
    ['an unknown target', () => createFakeCheckout().failNext(1, 500, { only: 'all' as never })],
    ['a negative delay', () => createFakeCheckout().setDelay(-5)],
  ])('rejects %s with a TypeError', (_what, act) => {
    expect(act).toThrow(TypeError);
  });

  it('failNext answers with the given body and headers, only for the requests it targets', async () => {
    const fake = createFakeCheckout({ partners: [partner] });
    fake.failNext(1, 500, { only: 'business', body: { message: 'boom' }, headers: { 'X-Extra': 'yes' } });
    expect((await fake.fetch(tokenRequest())).status).toBe(200);
    const response = await fake.fetch('https://checkout.test/api/v1/partner-api/auth/me');
    expect(response.status).toBe(500);
    expect(response.headers.get('x-extra')).toBe('yes');
    expect(await response.json()).toEqual({ message: 'boom' });
  });
});

describe('serving', () => {
  it.each([
    ['a negative port', { port: -1 }],
    ['a port above 65535', { port: 70_000 }],
    ['an empty host', { host: '' }],
  ])('listen rejects %s with a TypeError', async (_what, options) => {
    await expect(createFakeCheckout().listen(options)).rejects.toThrow(TypeError);
  });

  it.each(['not a url', 'ftp://checkout.test'])('handlers rejects the base URL %j with a TypeError', (baseUrl) => {
    expect(() => void createFakeCheckout().handlers(baseUrl)).toThrow(TypeError);
  });

  it('serves on 127.0.0.1 by default, and close() ends open connections at once', { timeout: 5_000 }, async () => {
    const fake = createFakeCheckout({ partners: [partner] });
    const server = await fake.listen();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const agent = new http.Agent({ keepAlive: true });
    const get = () =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(`${server.url}/api/v1/partner-api/auth/me`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    expect(await get()).toBe(401);
    // A response held back for a minute: without ending the connections, close() would wait for it.
    fake.setDelay(60_000);
    const pending = get();
    for (let i = 0; i < 200 && fake.stats.requests < 2; i += 1) await new Promise((r) => setTimeout(r, 10));
    await server.close();
    await server.close();
    await expect(pending).rejects.toThrow();
    agent.destroy();
    await expect(fetch(`${server.url}/api/v1/partner-api/auth/me`)).rejects.toThrow(TypeError);
  });

  it('answers 413 to a body larger than maxBodyBytes', async () => {
    const server = await createFakeCheckout({ partners: [partner] }).listen({ maxBodyBytes: 10 });
    try {
      const response = await fetch(`${server.url}/api/v1/partner-api/auth/token`, { method: 'POST', body: 'x'.repeat(100) });
      expect(response.status).toBe(413);
    } finally {
      await server.close();
    }
  });
});
