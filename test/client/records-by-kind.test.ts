import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CheckoutClient, WaitTimeoutError, type StatusKind } from 'checkout-partner-sdk';
import { isFinalStatus, isSuccessStatus } from 'checkout-partner-sdk/tracker';
import { reached, settled } from '../helpers/fake-time.js';
import { API, ORIGIN, PARTNER_ID, PARTNER_SECRET, mockCheckout, order } from './helpers.js';

// Issue 40: the client reads any kind of the kinds table (getRecord, waitFor); the per-kind reads
// are thin calls of them. Whether a status is final, and a success, is exported per kind.

const { server, state } = mockCheckout();
afterEach(() => vi.useRealTimers());
const newClient = () => new CheckoutClient({ baseUrl: ORIGIN, partnerId: PARTNER_ID, partnerSecret: PARTNER_SECRET, maxRetries: 0 });
const reads = () => state.seen.filter((r) => !r.path.endsWith('/auth/token')).map((r) => r.path);

function serveRecords(withdrawalStatus: (n: number) => string = () => 'Completed') {
  let withdrawalReads = 0;
  server.use(
    http.get(`${API}/orders/by-external-id/:id`, ({ params }) => HttpResponse.json(order(String(params.id)))),
    http.get(`${API}/withdrawals/by-external-id/:id`, ({ params }) => {
      withdrawalReads += 1;
      return HttpResponse.json(
        { externalId: params.id, status: withdrawalStatus(withdrawalReads) },
        { headers: { 'x-request-id': 'req-w' } },
      );
    }),
  );
}

describe('getRecord: one read for every kind', () => {
  it('reads each kind at its own path, as the per-kind reads do', async () => {
    serveRecords();
    const client = newClient();
    expect(await client.getRecord('order', 'o-1')).toEqual(order('o-1'));
    expect(await client.getRecord('withdrawal', 'w 1')).toEqual({ externalId: 'w 1', status: 'Completed' });
    expect(await client.getOrderByExternalId('o-2')).toEqual(order('o-2'));
    expect(await client.getWithdrawalByExternalId('w-2')).toEqual({ externalId: 'w-2', status: 'Completed' });
    expect(reads()).toEqual([
      '/api/v1/partner-api/orders/by-external-id/o-1',
      '/api/v1/partner-api/withdrawals/by-external-id/w%201',
      '/api/v1/partner-api/orders/by-external-id/o-2',
      '/api/v1/partner-api/withdrawals/by-external-id/w-2',
    ]);
  });

  it('refuses an unknown kind, a bad externalId and an unknown option with a TypeError, sending nothing', async () => {
    serveRecords();
    const client = newClient();
    await expect(client.getRecord('no-such-kind' as StatusKind, 'x-1')).rejects.toThrow(/kind must be "order" or .*, got "no-such-kind"/);
    await expect(client.getRecord('toString' as StatusKind, 'r-1')).rejects.toThrow(TypeError);
    await expect(client.getRecord('order', '..')).rejects.toThrow(TypeError);
    await expect(client.getRecord('order', 'o-1', { signals: 1 } as never)).rejects.toThrow(/unknown option "signals"/);
    expect(state.seen).toEqual([]);
  });

  it('withResponse().getRecord gives the response too, like the per-kind reads', async () => {
    serveRecords();
    const { data, response } = await newClient().withResponse().getRecord('withdrawal', 'w-1');
    expect(data).toEqual({ externalId: 'w-1', status: 'Completed' });
    expect(response).toMatchObject({ status: 200, requestId: 'req-w', attempts: 1 });
    const perKind = await newClient().withResponse().getWithdrawalByExternalId('w-2');
    expect(perKind.response.requestId).toBe('req-w');
  });
});

describe('waitFor: polls any kind until a predicate holds', () => {
  it('resolves with the record that satisfies it', async () => {
    serveRecords((n) => (n < 3 ? 'Processing' : 'Completed'));
    const done = await newClient().waitFor('withdrawal', 'w-1', (w) => isFinalStatus('withdrawal', w.status), { intervalMs: 1 });
    expect(done).toEqual({ externalId: 'w-1', status: 'Completed' });
    expect(reads()).toHaveLength(3);
  });

  it('rejects with WaitTimeoutError holding the last record, and refuses a bad kind before any read', async () => {
    serveRecords(() => 'Processing');
    const client = newClient();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let polled = 0;
    const until = () => {
      polled += 1;
      return false;
    };
    const pending = client.waitFor('withdrawal', 'w-1', until, { timeoutMs: 30, intervalMs: 5 }).catch((e: unknown) => e);
    await reached(() => polled === 1, 'the first read answered'); // on real I/O, before the clock moves
    await vi.advanceTimersByTimeAsync(30);
    const error = await settled(pending, 'the wait did not end at timeoutMs');
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as WaitTimeoutError).lastRecord).toEqual({ externalId: 'w-1', status: 'Processing' });
    const before = state.seen.length;
    await expect(client.waitFor('no-such-kind' as StatusKind, 'x-1', () => true)).rejects.toThrow(TypeError);
    expect(state.seen.length).toBe(before);
  });
});

describe('isFinalStatus and isSuccessStatus, per kind', () => {
  it.each([
    ['order', 'Settled', true, true],
    ['order', 'Cancelled', true, false],
    ['order', 'CANCELLED_BY_PROVIDER', true, false],
    ['order', 'Pending', false, false],
    ['order', null, false, false],
    ['withdrawal', 'Completed', true, true],
    ['withdrawal', 'Failed', true, false],
    ['withdrawal', 'rejected', true, false],
    ['withdrawal', 'Settled', false, false],
    ['withdrawal', 'completed', false, false],
  ] as const)('%s %s: final %s, success %s', (kind, status, final, success) => {
    expect(isFinalStatus(kind, status)).toBe(final);
    expect(isSuccessStatus(kind, status)).toBe(success);
  });

  it('refuses an unknown kind with a TypeError', () => {
    expect(() => isFinalStatus('no-such-kind' as StatusKind, 'Done')).toThrow(/kind must be "order" or .*, got "no-such-kind"/);
    expect(() => isSuccessStatus('__proto__' as StatusKind, 'Done')).toThrow(TypeError);
  });
});
