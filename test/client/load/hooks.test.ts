import { afterEach, describe, expect, it, vi } from 'vitest';
// internal: the observer object the OpenTelemetry instrumentation gives the load control
import { LoadControl } from '../../../src/client/load/load-control.js';
import type { LoadHooks } from '../../../src/client/load/hooks.js';
import { loadSettings } from '../../../src/client/load/options.js';

afterEach(() => {
  vi.useRealTimers();
});

const request = { method: 'get', path: '/orders/by-external-id/o-1' };

function recorder() {
  const events: [string, unknown][] = [];
  const hooks: LoadHooks = {
    queued: (e) => events.push(['queued', e]),
    retryDenied: (e) => events.push(['retryDenied', e]),
    budgetExhausted: (e) => events.push(['budgetExhausted', e]),
    budgetRestored: (e) => events.push(['budgetRestored', e]),
    paused: (e) => events.push(['paused', e]),
    rateChanged: (e) => events.push(['rateChanged', e]),
  };
  return { events, hooks };
}

describe('LoadHooks', () => {
  it('reports the budget running dry once, each refused retry, and its refill', () => {
    const { events, hooks } = recorder();
    const load = new LoadControl(loadSettings(undefined, { capacity: 10 }), hooks);
    expect([load.mayRetry(false), load.mayRetry(false), load.mayRetry(false), load.mayRetry(true)]).toEqual([true, true, false, false]);
    expect(events).toEqual([
      ['budgetExhausted', { available: 0, capacity: 10 }],
      ['retryDenied', { available: 0 }],
      ['retryDenied', { available: 0 }],
    ]);
    for (let i = 0; i < 5; i++) load.succeeded(false);
    expect(events.at(-1)).toEqual(['budgetRestored', { available: 5, capacity: 10 }]);
  });

  it('reports the time a request waited for its turn, and a Retry-After pause', async () => {
    vi.useFakeTimers();
    const { events, hooks } = recorder();
    const load = new LoadControl(loadSettings({ concurrency: 1 }, undefined), hooks);
    const deadline = performance.now() + 10_000;
    const first = load.enter(undefined, deadline, request, { attempts: 0 });
    expect(typeof first).toBe('number');
    const waiting = load.enter(undefined, deadline, request, { attempts: 0 });
    expect(waiting).toBeInstanceOf(Promise);
    await vi.advanceTimersByTimeAsync(250);
    load.leave(new Response(null, { status: 429, headers: { 'retry-after': '2' } }), performance.now(), first as number);
    expect(events).toEqual([['paused', { pauseMs: 2_000 }]]);
    await vi.advanceTimersByTimeAsync(2_000);
    await expect(waiting).resolves.toEqual(expect.any(Number));
    expect(events.at(-1)).toEqual(['queued', { method: 'GET', path: request.path, waitedMs: 2_250 }]);
  });

  it('a throwing observer never fails the request', () => {
    const load = new LoadControl(loadSettings(undefined, { capacity: 5 }), {
      retryDenied: () => {
        throw new Error('observer bug');
      },
    });
    expect(load.mayRetry(false)).toBe(true);
    expect(load.mayRetry(false)).toBe(false);
  });
});
