import { CheckoutClient } from 'checkout-partner-sdk';
import { PostgresEventStore, PostgresStatusStore } from 'checkout-partner-sdk/postgres';
import { RedisEventStore, RedisStatusStore, RedisTokenStore } from 'checkout-partner-sdk/redis';
import { createStatusTracker, MemoryStatusStore } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler, MemoryEventStore } from 'checkout-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';

// One rule everywhere: an option the SDK does not know is refused with a TypeError naming it (a
// misspelt option silently ignored is a default silently applied), with the closest known name
// when there is one. The check comes first, before any connection is touched.

const client = new CheckoutClient({ baseUrl: 'http://127.0.0.1:9', partnerId: 'p', partnerSecret: 's' });
const redis = {} as never;
const pool = {} as never;

const constructors: [string, (extra: Record<string, unknown>) => unknown][] = [
  ['CheckoutClient', (extra) => new CheckoutClient({ baseUrl: 'http://127.0.0.1:9', partnerId: 'p', partnerSecret: 's', ...extra })],
  ['createWebhookHandler', (extra) => createWebhookHandler({ secret: 's', client, onEvent: () => {}, logger: false, ...extra })],
  ['createStatusTracker', (extra) => createStatusTracker({ client, onChange: () => {}, logger: false, ...extra })],
  ['MemoryEventStore', (extra) => new MemoryEventStore({ ...extra })],
  ['MemoryStatusStore', (extra) => new MemoryStatusStore({ ...extra })],
  ['RedisEventStore', (extra) => new RedisEventStore({ client: redis, ...extra })],
  ['RedisStatusStore', (extra) => new RedisStatusStore({ client: redis, ...extra })],
  ['RedisTokenStore', (extra) => new RedisTokenStore({ client: redis, ...extra })],
  ['PostgresEventStore', (extra) => new PostgresEventStore({ pool, ...extra })],
  ['PostgresStatusStore', (extra) => new PostgresStatusStore({ pool, ...extra })],
];

describe('unknown options are refused everywhere', () => {
  it.each(constructors)('%s refuses an option it does not know, naming it', (name, make) => {
    expect(() => make({ colour: 'blue' })).toThrow(TypeError);
    expect(() => make({ colour: 'blue' })).toThrow(`${name}: unknown option "colour"`);
  });

  it.each([
    ['CheckoutClient', { timeoutMS: 1_000 }, 'timeoutMs'],
    ['createWebhookHandler', { responseTimeout: 1_000 }, 'responseTimeoutMs'],
    ['createStatusTracker', { leaseMS: 1_000 }, 'leaseMs'],
    ['MemoryEventStore', { maxEntires: 10 }, 'maxEntries'],
    ['MemoryStatusStore', { maxRecord: 10 }, 'maxRecords'],
    ['RedisEventStore', { prefx: 'x:' }, 'prefix'],
    ['RedisTokenStore', { lockms: 1_000 }, 'lockMs'],
    ['PostgresStatusStore', { tabel: 'x' }, 'table'],
  ] as const)('%s suggests the closest known name for a near miss', (name, extra, meant) => {
    const make = constructors.find(([n]) => n === name)![1];
    expect(() => make(extra)).toThrow(`(did you mean "${meant}"?)`);
  });

  it('suggests nothing for a name far from every option', () => {
    expect(() => new MemoryEventStore({ somethingElse: 1 } as never)).toThrow(/^MemoryEventStore: unknown option "somethingElse"$/);
  });

  it('per call and in nested options too: the read, wait and request options, confirm, rateLimit', async () => {
    await expect(client.getOrderByExternalId('o-1', { timeout: 5 } as never)).rejects.toThrow(
      'call: unknown option "timeout" (did you mean "timeoutMs"?)',
    );
    await expect(client.waitForOrder('o-1', () => true, { interval: 5 } as never)).rejects.toThrow('unknown option "interval"');
    await expect(client.request('GET', '/orders', { query: {} } as never)).rejects.toThrow('call: unknown option "query"');
    expect(() => createWebhookHandler({ secret: 's', client, onEvent: () => {}, confirm: { attempt: 2 } as never })).toThrow(
      'confirm: unknown option "attempt" (did you mean "attempts"?)',
    );
    expect(
      () =>
        new CheckoutClient({ baseUrl: 'http://127.0.0.1:9', partnerId: 'p', partnerSecret: 's', rateLimit: { concurrence: 2 } as never }),
    ).toThrow('rateLimit: unknown option "concurrence" (did you mean "concurrency"?)');
  });

  it('options that are not an object are refused as before', () => {
    expect(() => new MemoryEventStore(null as never)).toThrow('MemoryEventStore options must be an object, got null');
    expect(() => new CheckoutClient([] as never)).toThrow('CheckoutClient options must be an object, got an array');
  });
});
