import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CheckoutClient, HandlingAbandonedError } from 'checkout-partner-sdk';
import { createFakeCheckout } from 'checkout-partner-sdk/testing';
import { createStatusTracker, type StatusStore } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler, signPayload, type EventStore } from 'checkout-partner-sdk/webhooks';
import { afterEach, expect } from 'vitest';

// What the tests of a callback that never ends share, store by store (API.md "Work that never
// ends"): a worker process whose drain gave up on it exits by itself within 5 s of closing what it
// opened, and another worker takes the event or record within one lease of the give-up; past
// maxHandlingMs (3 s here) the signal aborts and another worker takes over within one lease.

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'hung-worker.ts');
const SECRET = 'whsec_hung_0123456789';

/** The lease every worker here holds its claims and records with. */
export const LEASE_MS = 3_000;
/** What "within" allows on top of a bound: polling and a loaded machine, never a second lease. */
const SLACK_MS = 1_500;

/** A store the callbacks hang on, and how another worker (in this process) reaches the same data. */
export interface StoreUnderTest {
  /** `memory`, `redis`, `postgres`, `postgres-tx` (the fixture's STORE). */
  readonly name: string;
  /** What the fixture needs to reach it (REDIS_URL and PREFIX, DATABASE_URL and TABLE). */
  readonly env: Record<string, string>;
  /** A new event store on the same data (a memory one is shared in this process only). */
  events(): EventStore;
  /** A new status store on the same data. */
  records(): StatusStore;
}

export type Part = 'webhook' | 'tracker';

const event = (name: string) => ({ eventId: `evt-hung-${name}`, type: 'pix.deposit.created' });

async function signed(url: string, body: object): Promise<Request> {
  const text = JSON.stringify(body);
  return new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-provider-signature': await signPayload(text, SECRET) },
    body: text,
  });
}

/** Waits until `check` holds, polling every 25 ms; `false` after `ms`. */
async function within(ms: number, check: () => boolean): Promise<boolean> {
  const until = performance.now() + ms;
  while (!check()) {
    if (performance.now() > until) return false;
    await sleep(25);
  }
  return true;
}

const children = new Set<ReturnType<typeof spawn>>();
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
});

/**
 * The fixture process with `part` hung on `store`: SIGTERM once its callback runs; its drain (500 ms)
 * gives up, it closes what it opened and must then exit by itself, code 0, within 5 s. Resolves when
 * (this process's clock) the drain gave up.
 */
export async function exitsAfterGivingUp(part: Part, store: StoreUnderTest): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: ROOT,
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'),
      PART: part,
      STORE: store.name,
      LEASE_MS: String(LEASE_MS),
      DRAIN_MS: '500',
      SECRET,
      ...store.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const seen = new Map<string, number>();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const line of stdout.split('\n').slice(0, -1)) if (!seen.has(line)) seen.set(line, performance.now());
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const line = (pattern: RegExp) => [...seen.keys()].find((printed) => pattern.test(printed));
  const printed = async (pattern: RegExp, ms: number) => {
    expect(await within(ms, () => line(pattern) !== undefined), `${pattern}; stdout: ${stdout}; stderr: ${stderr}`).toBe(true);
    return seen.get(line(pattern)!)!;
  };

  await printed(/^LISTENING /, 30_000);
  const port = Number(line(/^LISTENING /)!.slice('LISTENING '.length));
  if (part === 'webhook') void fetch(await signed(`http://127.0.0.1:${port}/webhooks`, event(store.name))).catch(() => undefined);
  await printed(/^CALLED /, 15_000);
  child.kill('SIGTERM');
  const gaveUpAt = await printed(/^REPORT /, 5_000);
  const report = JSON.parse(line(/^REPORT /)!.slice('REPORT '.length)) as { drained: boolean; inHand: object[] };
  expect(report.drained).toBe(false);
  expect(report.inHand).toEqual([
    part === 'webhook'
      ? { work: 'webhook.delivery', eventId: event(store.name).eventId, type: event(store.name).type }
      : { work: 'tracker.record', kind: 'order', externalId: 'o-hung' },
  ]);
  await printed(/^ABORTED drain$/, 1_000);
  const closedAt = await printed(/^CLOSED$/, 10_000);
  const [code, signal] = await exited;
  const exitedAt = performance.now();
  expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
  expect(exitedAt - closedAt).toBeLessThan(5_000);
  return gaveUpAt;
}

/** Another worker, in this process, on the same store: it takes the event or record within one lease of `gaveUpAt`. */
export async function anotherWorkerTakesOver(part: Part, store: StoreUnderTest, gaveUpAt: number): Promise<void> {
  const taken = part === 'webhook' ? await redeliverUntilHandled(store.events(), event(store.name)) : await handedOver(store.records());
  expect(taken - gaveUpAt).toBeLessThan(LEASE_MS + SLACK_MS);
}

/** Redelivers `body` every 100 ms to a handler on `events` until it is handled; resolves when. */
async function redeliverUntilHandled(events: EventStore, body: object): Promise<number> {
  let handledAt: number | undefined;
  const handler = createWebhookHandler({
    secret: SECRET,
    client: new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId: 'p', partnerSecret: 's' }),
    store: events,
    leaseMs: LEASE_MS,
    responseTimeoutMs: 1_000,
    logger: false,
    onEvent: () => {
      handledAt = performance.now();
    },
  });
  for (let attempt = 0; attempt < 200 && handledAt === undefined; attempt += 1) {
    const answer = await handler.handle(await signed('http://127.0.0.1/webhooks', body));
    if (answer.status !== 200) await sleep(100);
  }
  expect(handledAt).toBeTypeOf('number');
  return handledAt!;
}

/** A tracker on `records` (the order settled in its fake service) until it hands the change over; resolves when. */
async function handedOver(records: StatusStore): Promise<number> {
  const partner = { partnerId: 'p-other', partnerSecret: 's-other' };
  const fake = createFakeCheckout({ partners: [partner] });
  fake.setOrder({ externalId: 'o-hung', currency: 'BRZ', settlement: { status: 'Settled', tradeId: null } });
  let handedAt: number | undefined;
  const tracker = createStatusTracker({
    client: new CheckoutClient({ baseUrl: 'https://checkout.test', ...partner, fetch: fake.fetch }),
    store: records,
    leaseMs: LEASE_MS,
    claimIntervalMs: 50,
    logger: false,
    onChange: () => {
      handedAt ??= performance.now();
    },
  });
  tracker.start();
  try {
    expect(await within(LEASE_MS * 3, () => handedAt !== undefined)).toBe(true);
  } finally {
    await tracker.drain({ timeoutMs: 1_000 });
  }
  return handedAt!;
}

/**
 * In this process: a worker hung on `store` with maxHandlingMs 3 s; its signal aborts then (not
 * before), and another worker takes the work over within one lease of that.
 */
export async function givenUpPastMaxHandling(part: Part, store: StoreUnderTest): Promise<void> {
  const signals: AbortSignal[] = [];
  const hung = (signal: AbortSignal) => {
    signals.push(signal);
    return new Promise<void>(() => undefined);
  };
  let stop = async (): Promise<void> => undefined;
  if (part === 'webhook') {
    const handler = createWebhookHandler({
      secret: SECRET,
      client: new CheckoutClient({ baseUrl: 'https://checkout.test', partnerId: 'p', partnerSecret: 's' }),
      store: store.events(),
      // a transactional store's lease bounds its transaction, which began before onEvent: longer
      leaseMs: store.name === 'postgres-tx' ? 2 * LEASE_MS : LEASE_MS,
      responseTimeoutMs: 1_000,
      maxHandlingMs: 3_000,
      logger: false,
      onEvent: ({ signal }) => hung(signal),
    });
    void handler.handle(await signed('http://127.0.0.1/webhooks', event(`${store.name}-max`)));
  } else {
    const partner = { partnerId: 'p-max', partnerSecret: 's-max' };
    const fake = createFakeCheckout({ partners: [partner] });
    fake.setOrder({ externalId: 'o-hung', currency: 'BRZ', settlement: { status: 'Settled', tradeId: null } });
    const tracker = createStatusTracker({
      client: new CheckoutClient({ baseUrl: 'https://checkout.test', ...partner, fetch: fake.fetch }),
      store: store.records(),
      leaseMs: LEASE_MS,
      maxHandlingMs: 3_000,
      claimIntervalMs: 50,
      logger: false,
      onChange: ({ signal }) => hung(signal),
    });
    tracker.start();
    await tracker.watchOrder('o-hung');
    // an operator rolls this worker once it let go: it drains at once, nothing in hand
    stop = async () => {
      expect(await tracker.drain({ timeoutMs: 1_000 })).toEqual({ drained: true, inHand: [] });
    };
  }
  expect(await within(10_000, () => signals.length === 1)).toBe(true);
  const calledAt = performance.now();
  expect(await within(3_000 + SLACK_MS, () => signals[0]!.aborted)).toBe(true);
  const abortedAt = performance.now();
  expect(abortedAt - calledAt).toBeGreaterThanOrEqual(2_900); // the call was seen up to a poll late
  expect(signals[0]!.reason).toBeInstanceOf(HandlingAbandonedError);
  expect(signals[0]!.reason).toMatchObject({ reason: 'max-handling' });
  await stop();
  const taken =
    part === 'webhook' ? await redeliverUntilHandled(store.events(), event(`${store.name}-max`)) : await handedOver(store.records());
  expect(taken - abortedAt).toBeLessThan(LEASE_MS + SLACK_MS);
}
