import { createStatusTracker, MemoryStatusStore, type StatusStore, type StatusTracker } from 'checkout-partner-sdk/tracker';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { FAKE_TIMERS, fakeService, recorder } from './helpers.js';

// API.md "Failures are visible by default", for the tracker as for the webhook handler: without a
// logger, each failure writes one line to stderr (kind, externalId, what happened, the error's name
// and message, quoted); the same failure at most once a minute; `logger: false` silences it;
// CHECKOUT_LOG=debug prints every read and change.

let stderr: MockInstance<typeof console.error>;
let tracker: StatusTracker | undefined;
beforeEach(() => {
  stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(async () => {
  const draining = tracker?.drain({ timeoutMs: 1_000 });
  await vi.advanceTimersByTimeAsync(1_000);
  await draining;
  tracker = undefined;
  vi.useRealTimers();
  stderr.mockRestore();
  vi.unstubAllEnvs();
});

const lines = () =>
  stderr.mock.calls
    .map((call) => call.map(String).join(' '))
    // the memory-store notice (test/internal/memory-notice.test.ts) is not a failure line
    .filter((line) => line.startsWith('checkout-partner-sdk tracker') && !line.includes(' notice memory-store: '));

describe('without a logger, each tracker failure writes one line to stderr', () => {
  it('onChange threw: the kind, externalId, what happened and the error, escaped; never the record', async () => {
    const { fake, client, advance } = fakeService();
    fake.setOrder({ externalId: 'f-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: 'BODY-ONLY-VALUE' } });
    tracker = createStatusTracker({
      client,
      onChange: () => Promise.reject(new TypeError('ledger is down\n[INFO] checkout-partner-sdk tracker change forged')),
    });
    tracker.start();
    await tracker.watchOrder('f-1');
    await advance(500);
    expect(lines()).toHaveLength(1);
    const [line] = lines();
    expect(line).toMatch(
      /^checkout-partner-sdk tracker change-failed kind=order externalId="f-1" status="Pending" source=poll ms=\d+ error=TypeError "ledger is down\\n\[INFO\] checkout-partner-sdk tracker change forged"$/,
    );
    expect(line).not.toContain('\n');
    expect(line).not.toContain('BODY-ONLY-VALUE');
  });

  it('a read failed after the client retries: one line naming the record, the outcome and the API error', async () => {
    const { fake, client, advance } = fakeService();
    fake.setWithdrawal({ externalId: 'w-1', status: 'Processing' });
    const seen = recorder();
    tracker = createStatusTracker({ client, onChange: seen.onChange });
    tracker.start();
    await advance(100);
    fake.failNext(1, 503, { only: 'business' });
    await tracker.watchWithdrawal('w-1');
    await advance(500);
    expect(lines()).toEqual([
      expect.stringMatching(
        /^checkout-partner-sdk tracker read outcome=failed kind=withdrawal externalId="w-1" source=poll ms=\d+ error=\w+Error ".*" status=503$/,
      ),
    ]);
    // the record is read again and its status handed over: nothing else is written
    await advance(3_000);
    expect(seen.statuses('w-1')).toEqual(['Processing']);
    expect(lines()).toHaveLength(1);
  });

  it('a watch given up at its maximum age', async () => {
    const { fake, client, advance } = fakeService();
    fake.setOrder({ externalId: 'old-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    tracker = createStatusTracker({ client, onChange: () => {}, schedule: { maxAgeMs: 5_000, jitter: 0 } });
    tracker.start();
    await tracker.watchOrder('old-1');
    await advance(8_000);
    expect(lines()).toEqual(['checkout-partner-sdk tracker give-up reason=max-age kind=order externalId="old-1" status="Pending"']);
  });

  it('a store that keeps failing writes one line a minute, the next counting those held back', async () => {
    const { client, advance } = fakeService();
    const memory = new MemoryStatusStore();
    const failing: StatusStore = Object.assign(Object.create(null) as object, {
      watch: () => Promise.resolve(),
      unwatch: () => Promise.resolve(),
      nudge: () => Promise.resolve(),
      claimDue: () =>
        Promise.reject(Object.assign(new Error('Redis claim failed: connect ECONNREFUSED 127.0.0.1:6379'), { name: 'RedisStoreError' })),
      extend: memory.extend.bind(memory),
      commit: memory.commit.bind(memory),
      reschedule: memory.reschedule.bind(memory),
      release: memory.release.bind(memory),
      reclaim: memory.reclaim.bind(memory),
      get: memory.get.bind(memory),
    });
    tracker = createStatusTracker({ client, store: failing, onChange: () => {} });
    tracker.start();
    // the claim is retried every ≤ 5 s: ~30 failures in 150 s
    await advance(150_000, 1_000);
    expect(lines()).toEqual([
      'checkout-partner-sdk tracker store-failed error=RedisStoreError "Redis claim failed: connect ECONNREFUSED 127.0.0.1:6379"',
      expect.stringMatching(
        /^checkout-partner-sdk tracker store-failed error=RedisStoreError ".*" \(\d+ more like it in the last minute\)$/,
      ),
      expect.stringMatching(
        /^checkout-partner-sdk tracker store-failed error=RedisStoreError ".*" \(\d+ more like it in the last minute\)$/,
      ),
    ]);
    const held = Number(/\((\d+) more/.exec(lines()[1]!)![1]);
    expect(held).toBeGreaterThan(5);
  });
});

describe('an outage over a large backlog', () => {
  it('failed reads are visible at warn, one stderr line a minute with its count, never a line per read', async () => {
    const { fake, client, advance } = fakeService();
    const records = Array.from({ length: 1_000 }, (_, i) => `backlog-${i}`);
    for (const externalId of records) fake.setOrder({ externalId, currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    tracker = createStatusTracker({ client, store: new MemoryStatusStore(), onChange: () => {}, maxConcurrentReads: 100 });
    for (const externalId of records) await tracker.watchOrder(externalId);
    fake.failNext(1_000_000, 503, { only: 'business' });
    tracker.start();
    await advance(150_000, 1_000);
    const reads = lines().filter((line) => line.startsWith('checkout-partner-sdk tracker read '));
    expect(reads.length).toBeGreaterThanOrEqual(2);
    expect(reads.length).toBeLessThanOrEqual(3); // the first, then one a minute
    expect(reads[0]).toMatch(/^checkout-partner-sdk tracker read outcome=failed kind=order externalId="backlog-\d+" .* status=503$/);
    const held = Number(/\((\d+) more like it in the last minute\)$/.exec(reads[1]!)?.[1]);
    expect(held).toBeGreaterThanOrEqual(99); // the first batch of reads failed together
  });

  it('a logger object gets a failed read at warn, the others at debug', async () => {
    const { fake, client, advance } = fakeService();
    fake.setOrder({ externalId: 'warn-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    const levels: string[] = [];
    const at = (level: string) => (entry: { event: string; outcome?: string }) => {
      if (entry.event === 'tracker.read') levels.push(`${level} ${entry.outcome ?? ''}`);
    };
    tracker = createStatusTracker({
      client,
      store: new MemoryStatusStore(),
      onChange: () => {},
      schedule: { jitter: 0 },
      logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    });
    fake.failNext(1, 503, { only: 'business' });
    tracker.start();
    await tracker.watchOrder('warn-1');
    await advance(3_000);
    expect(levels.slice(0, 2)).toEqual(['warn failed', 'debug changed']);
  });
});

describe('logger: false and CHECKOUT_LOG=debug', () => {
  it('logger: false writes nothing, even for a failure', async () => {
    const { fake, client, advance } = fakeService();
    fake.setOrder({ externalId: 'quiet-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    tracker = createStatusTracker({ client, logger: false, onChange: () => Promise.reject(new Error('ledger is down')) });
    tracker.start();
    await tracker.watchOrder('quiet-1');
    await advance(3_000);
    expect(stderr).not.toHaveBeenCalled();
  });

  it('CHECKOUT_LOG=debug prints every read and change', async () => {
    vi.stubEnv('CHECKOUT_LOG', 'DEBUG');
    const { fake, client, advance } = fakeService();
    fake.setOrder({ externalId: 'loud-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    tracker = createStatusTracker({ client, onChange: () => {}, schedule: { jitter: 0 } });
    tracker.start();
    await tracker.watchOrder('loud-1');
    await advance(2_500);
    expect(lines()).toEqual([
      expect.stringMatching(
        /^checkout-partner-sdk tracker read outcome=changed kind=order externalId="loud-1" status="Pending" source=poll ms=\d+$/,
      ),
      expect.stringMatching(/^checkout-partner-sdk tracker change kind=order externalId="loud-1" status="Pending" source=poll ms=\d+$/),
      expect.stringMatching(
        /^checkout-partner-sdk tracker read outcome=same kind=order externalId="loud-1" status="Pending" previousStatus="Pending" source=poll ms=\d+$/,
      ),
    ]);
  });

  it('a logger given gets the entries and nothing goes to stderr', async () => {
    const { fake, client, advance } = fakeService();
    fake.setOrder({ externalId: 'own-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: null } });
    const seen = recorder();
    tracker = createStatusTracker({ client, logger: seen.logger, onChange: () => Promise.reject(new Error('ledger is down')) });
    tracker.start();
    await tracker.watchOrder('own-1');
    await advance(500);
    expect(seen.log.some((entry) => entry.event === 'tracker.change-failed')).toBe(true);
    expect(stderr).not.toHaveBeenCalled();
  });
});

describe('CHECKOUT_LOG_FORMAT=json', () => {
  it('a tracker failure is one JSON object on one line, with the same fields as the logger entry', async () => {
    vi.stubEnv('CHECKOUT_LOG_FORMAT', 'json');
    const { fake, client, advance } = fakeService();
    fake.setOrder({ externalId: 'f-1', currency: 'BRZ', settlement: { status: 'Pending', tradeId: 'BODY-ONLY-VALUE' } });
    tracker = createStatusTracker({ client, onChange: () => Promise.reject(new TypeError('ledger is down')) });
    tracker.start();
    await tracker.watchOrder('f-1');
    await advance(500);
    const json = stderr.mock.calls.map((call) => call.map(String).join(' ')).filter((line) => line.startsWith('{'));
    expect(json).toHaveLength(1);
    const [line = ''] = json;
    expect(JSON.parse(line)).toMatchObject({
      level: 'error',
      logger: 'checkout-partner-sdk',
      event: 'tracker.change-failed',
      kind: 'order',
      externalId: 'f-1',
      status: 'Pending',
      source: 'poll',
      error: { name: 'TypeError', message: 'ledger is down' },
    });
    expect(line).not.toContain('BODY-ONLY-VALUE');
    expect(lines()).toEqual([]); // no key=value line besides
  });
});
