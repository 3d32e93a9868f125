import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createFakeCheckout, deliverEvent, type FakeCheckout } from 'checkout-partner-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';

// API.md "Operations": every shutdown sample in the README and docs, run as written, exits within a
// 30 s grace period with work in hand, loses and doubles nothing, and closes what it opened. The
// samples are the files under examples/shutdown/, which the docs show verbatim (checked first); each
// runs here in a child process against the fake service, behind a proxy that holds the status read
// in flight when SIGTERM arrives.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PARTNER = { partnerId: 'p-shutdown', partnerSecret: 'partner-secret-shutdown' };
const SIGNING_SECRET = 'whsec_shutdown_0123456789';
const GRACE_MS = 30_000;
const HOLD_MS = 3_000;

// `drain()` of the webhook handler waits for the delivery in hand (its read, then onEvent); the
// tracker's aborts a read in hand and gives the record back (it waits only for an onChange already
// running), so that change is handled after the restart, which watches order-42 again at start.
const SAMPLES = [
  { file: 'examples/shutdown/tracker-and-webhooks.ts', docs: ['README.md', 'docs/webhooks.md'], order: 'order-42', waitsForRead: false },
  { file: 'examples/shutdown/webhooks.ts', docs: ['docs/webhooks.md'], order: 'order-of-t-7', waitsForRead: true },
] as const;

/** The ```ts blocks of a markdown file. */
function tsBlocks(file: string): string[] {
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
 * The fake service behind a loopback proxy that counts the status reads of `order` as they arrive
 * and, once `hold` is set, answers them `HOLD_MS` late (work in hand at SIGTERM).
 */
async function heldService(fake: FakeCheckout, order: string) {
  const state = { hold: false, readsArrived: 0 };
  const body = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return chunks.length === 0 ? undefined : Buffer.concat(chunks);
  };
  const proxy = createServer((req, res) => {
    void (async () => {
      const payload = await body(req);
      if ((req.url ?? '').endsWith(`/orders/by-external-id/${order}`)) {
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

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const step of cleanup.splice(0)) step();
});

function run(file: string, env: Record<string, string>) {
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

/** Waits until the sample answers (405 to a GET: its SIGTERM handler is in place by then). */
async function listening(webhookUrl: string, child: ReturnType<typeof run>): Promise<void> {
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
async function stopWithin(child: ReturnType<typeof run>): Promise<number> {
  const sentAt = performance.now();
  child.child.kill('SIGTERM');
  const exit = await Promise.race([child.exited, new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), GRACE_MS))]);
  const tookMs = performance.now() - sentAt;
  expect(exit, `stdout: ${child.out()}\nstderr: ${child.err()}`).toEqual({ code: 0, signal: null });
  expect(tookMs).toBeLessThan(GRACE_MS);
  return tookMs;
}

describe('every shutdown sample of the docs', () => {
  for (const sample of SAMPLES) {
    for (const doc of sample.docs) {
      it(`${doc} shows ${sample.file} verbatim`, () => {
        expect(tsBlocks(doc)).toContain(readFileSync(`${ROOT}${sample.file}`, 'utf8').trimEnd());
      });
    }

    it(`${sample.file}: SIGTERM with a read in hand exits 0 within 30 s, the change handled once`, { timeout: 60_000 }, async () => {
      const fake = createFakeCheckout({ partners: [PARTNER] });
      fake.setOrder({ externalId: sample.order, settlement: { status: 'Pending', tradeId: 't-7' } });
      const service = await heldService(fake, sample.order);
      cleanup.push(() => void service.proxy.close());
      const port = await freePort();
      const env = {
        CHECKOUT_BASE_URL: service.url,
        CHECKOUT_PARTNER_ID: PARTNER.partnerId,
        CHECKOUT_PARTNER_SECRET: PARTNER.partnerSecret,
        WEBHOOK_SIGNING_SECRET: SIGNING_SECRET,
        PORT: String(port),
      };
      const child = run(sample.file, env);
      const webhookUrl = `http://127.0.0.1:${port}/webhooks`;
      await listening(webhookUrl, child);

      // the order settles; its event arrives while the status read it causes is held in flight
      fake.updateOrder(sample.order, { settlement: { status: 'Settled', tradeId: 't-7' } });
      service.state.hold = true;
      const before = service.state.readsArrived;
      const event = { eventId: 'evt-shutdown-1', type: 'otc.trade.settled', tradeId: 't-7' };
      const delivered = deliverEvent(webhookUrl, event, { secret: SIGNING_SECRET });
      expect(await eventually(() => service.state.readsArrived > before, 10_000)).toBe(true);

      const first = await stopWithin(child);
      if (sample.waitsForRead) expect(first).toBeGreaterThanOrEqual(HOLD_MS - 500); // it waited for the work in hand
      await delivered.catch(() => undefined); // answered (200 or 503) before the server closed
      let paid = child.out().match(new RegExp(`paid ${sample.order}\\b`, 'g'))?.length ?? 0;

      // a restart (a rollout's next process): what the first left in hand is handled now, once in all
      service.state.hold = false;
      const second = run(sample.file, env);
      await listening(webhookUrl, second);
      expect(
        await eventually(() => paid + (second.out().match(new RegExp(`paid ${sample.order}\\b`, 'g'))?.length ?? 0) >= 1, 20_000),
      ).toBe(true);
      await stopWithin(second);
      paid += second.out().match(new RegExp(`paid ${sample.order}\\b`, 'g'))?.length ?? 0;
      expect(paid).toBe(1);
      await delivered.catch(() => undefined);
    });
  }
});
