import { CheckoutClient, type LogEntry } from 'checkout-partner-sdk';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { vi } from 'vitest';
import type { StatusChange } from 'checkout-partner-sdk/tracker';

type TrackerLogEntry = Extract<LogEntry, { event: `tracker.${string}` }>;

/** Fake timers (performance.now() included: the tracker's deadlines and the memory store's clock) that leave setImmediate real (the helper below yields with it). */
export const FAKE_TIMERS: Parameters<typeof vi.useFakeTimers>[0] = { toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] };

export const ORIGIN = 'https://checkout.test';

/** The fake service and a real client reading it through `fake.fetch`; `reads` counts status GETs by externalId. */
export function fakeService() {
  const fake = createFakeCheckout({ partners: [{ partnerId: 'p-1', partnerSecret: 's-1', enabled: true, apiEnabled: true }] });
  const reads = new Map<string, number>();
  let inFlight = 0;
  const client = new CheckoutClient({
    baseUrl: ORIGIN,
    partnerId: 'p-1',
    partnerSecret: 's-1',
    maxRetries: 0,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const match = /by-external-id\/([^/?]+)/.exec(new URL(request.url).pathname);
      if (match) reads.set(decodeURIComponent(match[1]!), (reads.get(decodeURIComponent(match[1]!)) ?? 0) + 1);
      inFlight += 1;
      try {
        return await fake.fetch(request);
      } finally {
        inFlight -= 1;
      }
    },
  });
  /**
   * Moves the fake clock by `ms` in steps, letting the requests started at each step finish first:
   * the fake's JWT checks run on Web Crypto, which settles on real event-loop turns, not on timers.
   */
  const advance = async (ms: number, stepMs = 250): Promise<void> => {
    for (let elapsed = 0; elapsed < ms; elapsed += stepMs) {
      await vi.advanceTimersByTimeAsync(Math.min(stepMs, ms - elapsed));
      for (let turn = 0; turn < 50_000 && inFlight > 0; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(0);
    }
  };
  return { fake, client, reads, advance };
}

/** Collects what onChange got and what the logger wrote. */
export function recorder() {
  const changes: StatusChange[] = [];
  const log: TrackerLogEntry[] = [];
  return {
    changes,
    log,
    onChange: (change: StatusChange) => {
      changes.push(change);
    },
    logger: (entry: TrackerLogEntry) => {
      log.push(entry);
    },
    statuses: (externalId: string) => changes.filter((c) => c.externalId === externalId).map((c) => c.status),
  };
}
