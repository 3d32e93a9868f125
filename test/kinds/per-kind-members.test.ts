import { CheckoutClient, NotFoundError } from 'checkout-partner-sdk';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { createStatusTracker, MemoryStatusStore } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { capitalized, KINDS } from '../helpers/kinds.js';

// Issue 45: each kind's own members (getOrderByExternalId, waitForOrder, watchOrder,
// resolveOrderExternalId, fake.setOrder, ...) are made from the kinds table, each a call of the
// generic member with its kind. Every kind of the table is checked, so a new one is at once.

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Calls the member of `target` named `name` (a per-kind name made in a loop has no static type). */
const call = (target: object, name: string, ...args: unknown[]): unknown =>
  (target as Record<string, (...args: unknown[]) => unknown>)[name]!.call(target, ...args);

const newClient = () => new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId: 'p-1', partnerSecret: 's-1', maxRetries: 0 });

const fakeClient = () => {
  const fake = createFakeCheckout({ partners: [{ partnerId: 'p-1', partnerSecret: 's-1', enabled: true, apiEnabled: true }] });
  const client = new CheckoutClient({
    baseUrl: 'https://checkout.test',
    partnerId: 'p-1',
    partnerSecret: 's-1',
    maxRetries: 0,
    fetch: fake.fetch,
  });
  return { fake, client };
};

describe.each(KINDS)('the %s kind has its own members, each a call of the generic one', (kind) => {
  const Kind = capitalized(kind);

  it(`client.get${Kind}ByExternalId and waitFor${Kind} call getRecord and waitFor with the kind`, async () => {
    const client = newClient();
    const record = { externalId: 'x-1' };
    const getRecord = vi.spyOn(client, 'getRecord').mockResolvedValue(record);
    const waitFor = vi.spyOn(client, 'waitFor').mockResolvedValue(record);
    const options = { timeoutMs: 5 };
    const until = () => true;
    expect(await call(client, `get${Kind}ByExternalId`, 'x-1', options)).toBe(record);
    expect(await call(client, `waitFor${Kind}`, 'x-1', until, options)).toBe(record);
    expect(getRecord.mock.calls).toEqual([[kind, 'x-1', options]]);
    expect(waitFor.mock.calls).toEqual([[kind, 'x-1', until, options]]);
    // on the prototype, as declared methods are: not an own, listed property of each client
    expect(Object.keys(client)).not.toContain(`get${Kind}ByExternalId`);
    expect(Object.getPrototypeOf(client)).toHaveProperty(`get${Kind}ByExternalId`);
  });

  it(`withResponse().get${Kind}ByExternalId reads what withResponse().getRecord reads`, async () => {
    const { fake, client } = fakeClient();
    const reads = client.withResponse();
    await expect(call(reads, `get${Kind}ByExternalId`, 'x-1') as Promise<unknown>).rejects.toThrow(NotFoundError);
    await expect(reads.getRecord(kind, 'x-1')).rejects.toThrow(NotFoundError);
    const paths = fake.requests.filter((request) => !request.path.endsWith('/auth/token')).map((request) => request.path);
    expect(paths).toHaveLength(2);
    expect(paths[0]).toBe(paths[1]);
  });

  it(`tracker.watch${Kind} watches a record of the kind, as watch(kind) does`, async () => {
    const store = new MemoryStatusStore();
    const tracker = createStatusTracker({ client: newClient(), store, onChange: () => {}, logger: false });
    await call(tracker, `watch${Kind}`, 'x-1');
    expect(await store.get(kind, 'x-1')).toMatchObject({ watching: true });
    // the tracker's members are its own, so they work unbound
    const { [`watch${Kind}` as 'watch']: unbound } = tracker as unknown as Record<'watch', (id: string) => Promise<void>>;
    await unbound('x-2');
    expect(await store.get(kind, 'x-2')).toMatchObject({ watching: true });
  });

  it(`the webhook handler takes resolve${Kind}ExternalId, as resolveExternalId.${kind}`, () => {
    const base = { secret: 's', client: newClient(), onEvent: () => {}, logger: false as const };
    const resolver = () => undefined;
    expect(() => createWebhookHandler({ ...base, [`resolve${Kind}ExternalId`]: resolver })).not.toThrow();
    expect(() =>
      createWebhookHandler({ ...base, [`resolve${Kind}ExternalId`]: resolver, resolveExternalId: { [kind]: resolver } }),
    ).toThrow(new RegExp(`resolveExternalId\\.${kind} or resolve${Kind}ExternalId, not both`));
  });

  it(`the fake's set${Kind}, update${Kind}, get${Kind} and delete${Kind} are its record methods for the kind`, () => {
    const { fake } = fakeClient();
    expect(call(fake, `get${Kind}`, 'x-1')).toBeUndefined();
    expect(call(fake, `delete${Kind}`, 'x-1')).toBe(false);
    // a record the kind's schema refuses is refused, in the per-kind method's name
    expect(() => call(fake, `set${Kind}`, { externalId: 5 })).toThrow(new RegExp(`^set${Kind}\\(\\)`));
    expect(() => call(fake, `update${Kind}`, 'x-1', {})).toThrow(new RegExp(`^update${Kind}\\(\\): no ${kind} with externalId`));
    expect(() => fake.updateRecord(kind, 'x-1', {})).toThrow(/^updateRecord\(\): no /);
  });
});
