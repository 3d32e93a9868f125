import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createFakeCheckout, deliverEvent, type FakeCheckout } from 'checkout-partner-sdk/testing';
import { afterEach, expect } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/free-port.js';

// What the shutdown-sample tests share: each sample under examples/shutdown/ runs as written in a
// child process against the fake service, behind a proxy that holds a status read in flight when
// SIGTERM arrives, and must exit 0 within a 30 s grace period.

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PARTNER = { partnerId: 'p-shutdown', partnerSecret: 'partner-secret-shutdown' };
export const GRACE_MS = 30_000;
export const HOLD_MS = 3_000;

/** The ```ts blocks of a markdown file. */
export function tsBlocks(file: string): string[] {
  const blocks: string[] = [];
  const lines = readFileSync(`${ROOT}${file}`, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```ts\s*$/.test(lines[i] ?? '')) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? '')) end++;
    blocks.push(lines.slice(i + 1, end).join('\n'));
    i = end;
  }
  return blocks;
}

/**
 * The fake service behind a loopback proxy that counts the status reads of the record at `path`
 * (e.g. `/orders/by-external-id/order-42`) as they arrive and, once `hold` is set, answers them
 * `HOLD_MS` late (work in hand at SIGTERM).
 */
export async function heldService(fake: FakeCheckout, path: string) {
  const state = { hold: false, readsArrived: 0 };
  const body = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return chunks.length === 0 ? undefined : Buffer.concat(chunks);
  };
  const proxy = createServer((req, res) => {
    void (async () => {
      const payload = await body(req);
      if ((req.url ?? '').endsWith(path)) {
        state.readsArrived += 1;
        if (state.hold) await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
      }
      const headers = Object.entries(req.headers).flatMap(([name, value]) =>
        typeof value === 'string' ? [[name, value] as [string, string]] : [],
      );
      const answer = await fake.fetch(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, body: payload ?? null });
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(Buffer.from(await answer.arrayBuffer()));
    })();
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  return { proxy, state, url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` };
}

/** Steps run after each test (children killed, servers closed). */
export const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const step of cleanup.splice(0)) step();
});

/** Runs a sample file (through tsx) in a child process with only `env` (and PATH, HOME). */
export function run(file: string, env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  cleanup.push(() => child.kill('SIGKILL'));
  return { child, exited, out: () => stdout, err: () => stderr };
}
export type SampleProcess = ReturnType<typeof run>;

/** How many lines of the sample's stdout match `pattern` (a whole-line match). */
export function countLines(child: SampleProcess, pattern: string): number {
  return child
    .out()
    .split('\n')
    .filter((line) => line === pattern).length;
}

/** Waits until the sample answers (405 to a GET: its SIGTERM handler is in place by then). */
export async function listening(webhookUrl: string, child: SampleProcess): Promise<void> {
  const up = await eventually(async () => {
    try {
      return (await fetch(webhookUrl, { method: 'GET' })).status === 405;
    } catch {
      return false;
    }
  }, 20_000);
  expect(up, child.err()).toBe(true);
}

/** Sends SIGTERM; expects a clean exit (code 0) within the grace period; resolves how long it took. */
export async function stopWithin(child: SampleProcess): Promise<number> {
  const sentAt = performance.now();
  child.child.kill('SIGTERM');
  const exit = await Promise.race([child.exited, new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), GRACE_MS))]);
  const tookMs = performance.now() - sentAt;
  expect(exit, `stdout: ${child.out()}\nstderr: ${child.err()}`).toEqual({ code: 0, signal: null });
  expect(tookMs).toBeLessThan(GRACE_MS);
  return tookMs;
}

/** The ```ts blocks of a markdown file marked `<!-- excerpt: <file> -->` on the line before the fence. */
export function excerpts(doc: string, file: string): string[] {
  const lines = readFileSync(`${ROOT}${doc}`, 'utf8').split('\n');
  const found: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (lines[i - 1] !== `<!-- excerpt: ${file} -->` || !/^```ts\s*$/.test(lines[i] ?? '')) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? '')) end++;
    found.push(lines.slice(i + 1, end).join('\n'));
    i = end;
  }
  return found;
}

export const SIGNING_SECRET = 'whsec_shutdown_0123456789';

/** A shutdown sample, and the order its webhook event settles. */
export interface ShutdownSample {
  readonly file: string;
  readonly order: string;
  /** Whether the first process's drain waits for the read in hand (a handler without a tracker). */
  readonly waitsForRead: boolean;
  /** Env beside the service's and the port (DATABASE_URL, PROBE_PORT, ...). */
  readonly env?: Record<string, string>;
  /** Checked once the first process answers (its probes, say). */
  readonly whileUp?: () => Promise<void>;
  /** How soon after SIGTERM each process must exit, when sooner than the grace period. */
  readonly exitsWithinMs?: number;
}

/**
 * Runs `sample` as written; with a webhook delivery in hand and the status read it causes held in
 * flight, sends SIGTERM: exit 0 within 30 s (nothing it opened left holding the process). A restart
 * (a rollout's next process) handles what the first left in hand: the order is paid once in all.
 */
export async function sigtermWithWorkInHand(sample: ShutdownSample): Promise<void> {
  const fake = createFakeCheckout({ partners: [PARTNER] });
  fake.setOrder({ externalId: sample.order, settlement: { status: 'Pending', tradeId: 't-7' } });
  const service = await heldService(fake, `/orders/by-external-id/${sample.order}`);
  cleanup.push(() => void service.proxy.close());
  const port = await freePort();
  const env = sampleEnv(service.url, port, sample.env);
  const child = run(sample.file, env);
  const webhookUrl = `http://127.0.0.1:${port}/webhooks`;
  await listening(webhookUrl, child);
  await sample.whileUp?.();

  // the order settles; its event arrives while the status read it causes is held in flight
  fake.updateOrder(sample.order, { settlement: { status: 'Settled', tradeId: 't-7' } });
  service.state.hold = true;
  const before = service.state.readsArrived;
  const event = { eventId: 'evt-shutdown-1', type: 'otc.trade.settled', tradeId: 't-7' };
  const delivered = deliverEvent(webhookUrl, event, { secret: SIGNING_SECRET });
  expect(await eventually(() => service.state.readsArrived > before, 10_000)).toBe(true);

  const first = await stopWithin(child);
  if (sample.exitsWithinMs !== undefined) expect(first).toBeLessThan(sample.exitsWithinMs);
  if (sample.waitsForRead) expect(first).toBeGreaterThanOrEqual(HOLD_MS - 500); // it waited for the work in hand
  await delivered.catch(() => undefined); // answered (200 or 503) before the server closed
  const paidIn = (process: SampleProcess) => process.out().match(new RegExp(`paid ${sample.order}\\b`, 'g'))?.length ?? 0;
  let paid = paidIn(child);

  // a restart (a rollout's next process): what the first left in hand is handled now, once in all
  service.state.hold = false;
  const second = run(sample.file, env);
  await listening(webhookUrl, second);
  expect(await eventually(() => paid + paidIn(second) >= 1, 20_000), second.err()).toBe(true);
  const stopped = await stopWithin(second);
  if (sample.exitsWithinMs !== undefined) expect(stopped).toBeLessThan(sample.exitsWithinMs);
  paid += paidIn(second);
  expect(paid).toBe(1);
  await delivered.catch(() => undefined);
}

/**
 * A copy of `file` under .tmp/ whose fulfilment never ends: the statement on its `// your fulfilment`
 * (or `// your effect`) line prints as written, then awaits a promise that never settles, ignoring
 * its signal (the worst a callback can do).
 */
export function hungCopy(file: string): string {
  const lines = readFileSync(`${ROOT}${file}`, 'utf8').split('\n');
  const at = lines.findIndex((line) => line.includes('console.log(') && /\/\/ your (fulfilment|effect)/.test(line));
  expect(at, `${file} has no fulfilment line to hang`).toBeGreaterThanOrEqual(0);
  const line = lines[at]!;
  const comment = line.indexOf(' // your');
  const code = line.slice(0, comment);
  const call = code.indexOf('console.log(');
  lines[at] = `${code.slice(0, call)}{ ${code.slice(call)} await new Promise(() => undefined); }${line.slice(comment)}`;
  mkdirSync(`${ROOT}.tmp`, { recursive: true });
  const dir = mkdtempSync(`${ROOT}.tmp/hung-`);
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const copy = `${dir}/${file.split('/').at(-1)}`;
  writeFileSync(copy, lines.join('\n'));
  return copy;
}

/** A shutdown sample run with a callback that never ends. */
export interface HungSample {
  readonly file: string;
  /** The line the fulfilment prints before it hangs. */
  readonly fulfilled: string;
  /** The fake service's records. */
  readonly setup: (fake: FakeCheckout) => void;
  /** The provider event that brings the change, delivered to the receiver on PORT; none: the watch at start brings it. */
  readonly event?: { eventId: string; type: string; tradeId: string };
  /** Env beside the service's (DATABASE_URL, REDIS_URL, ...). */
  readonly env?: Record<string, string>;
}

/**
 * Runs a copy of `sample` whose callback never ends (see {@link hungCopy}); once it hangs, SIGTERM:
 * its drains give up on it, it closes what it opened and exits 0 within the grace period, 5 s past
 * its drains' 10 s at most. The rollout's next process then takes the work over: its callback runs
 * again (and hangs too: SIGTERM, exit 0 again).
 */
export async function sigtermWithHungCallback(sample: HungSample): Promise<void> {
  const file = hungCopy(sample.file);
  const fake = createFakeCheckout({ partners: [PARTNER] });
  sample.setup(fake);
  const service = await heldService(fake, '/none');
  cleanup.push(() => void service.proxy.close());
  const port = await freePort();
  const env = sampleEnv(service.url, port, sample.env);
  const webhookUrl = `http://127.0.0.1:${port}/webhooks`;
  const hangs = async (child: SampleProcess) => {
    if (sample.event !== undefined) {
      await listening(webhookUrl, child);
      void deliverEvent(webhookUrl, sample.event, { secret: SIGNING_SECRET, maxAttempts: 1 }).catch(() => undefined);
    }
    expect(
      await eventually(() => countLines(child, sample.fulfilled) === 1, 20_000),
      `stdout: ${child.out()}\nstderr: ${child.err()}`,
    ).toBe(true);
  };

  const first = run(file, env);
  await hangs(first);
  expect(await stopWithin(first)).toBeLessThan(15_000);
  const second = run(file, env);
  await hangs(second);
  expect(await stopWithin(second)).toBeLessThan(15_000);
}

/** A sample's environment: the fake's credentials, its port, and its own variables. */
function sampleEnv(baseUrl: string, port: number, own: Record<string, string> | undefined): Record<string, string> {
  return {
    CHECKOUT_BASE_URL: baseUrl,
    CHECKOUT_PARTNER_ID: PARTNER.partnerId,
    CHECKOUT_PARTNER_SECRET: PARTNER.partnerSecret,
    WEBHOOK_SIGNING_SECRET: SIGNING_SECRET,
    PORT: String(port),
    HOSTNAME: 'pod-1',
    ...own,
  };
}
