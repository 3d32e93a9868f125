import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/free-port.js';
import {
  excerpts,
  listening,
  PARTNER,
  ROOT,
  run,
  sigtermWithHungCallback,
  sigtermWithWorkInHand,
  SIGNING_SECRET,
  stopWithin,
  tsBlocks,
  type ShutdownSample,
} from './shutdown-samples.js';

// API.md "Operations": every shutdown sample in the README and docs, run as written, exits within a
// 30 s grace period with work in hand, loses and doubles nothing, and closes what it opened. The
// samples are the files under examples/shutdown/ (one place), which the docs show verbatim or by an
// excerpt marked `<!-- excerpt: <file> -->` (checked first); each runs here in a child process
// against the fake service, behind a proxy that holds the status read in flight when SIGTERM
// arrives (shutdown-samples.ts). The Redis and PostgreSQL samples need their servers:
// shutdown-redis.integration.test.ts, shutdown-postgres.integration.test.ts.

// `drain()` of the webhook handler waits for the delivery in hand (its read, then onEvent); the
// tracker's aborts a read in hand and gives the record back (it waits only for an onChange already
// running), so that change is handled after the restart, which watches order-42 again at start.
const probePort = await freePort();
const SAMPLES: (ShutdownSample & { verbatimIn: string[]; excerptIn: string[] })[] = [
  {
    file: 'examples/shutdown/tracker-and-webhooks.ts',
    verbatimIn: [],
    excerptIn: ['docs/webhooks.md'],
    order: 'order-42',
    waitsForRead: false,
  },
  { file: 'examples/shutdown/webhooks.ts', verbatimIn: [], excerptIn: [], order: 'order-of-t-7', waitsForRead: true },
  {
    // a probe server beside the app's: the shutdown closes both
    file: 'examples/shutdown/probes.ts',
    verbatimIn: [],
    excerptIn: ['docs/tracker.md'],
    order: 'order-42',
    waitsForRead: false,
    env: { PROBE_PORT: String(probePort) },
    whileUp: async () => {
      for (const probe of ['startupz', 'livez', 'readyz']) {
        const answer = await fetch(`http://127.0.0.1:${probePort}/${probe}`);
        expect(answer.status, `/${probe}: ${await answer.clone().text()}`).toBe(200);
        await answer.body?.cancel();
      }
    },
  },
];

describe('every shutdown sample of the docs', () => {
  for (const sample of SAMPLES) {
    const file = readFileSync(`${ROOT}${sample.file}`, 'utf8').trimEnd();
    for (const doc of sample.verbatimIn) {
      it(`${doc} shows ${sample.file} verbatim`, () => {
        expect(tsBlocks(doc)).toContain(file);
      });
    }
    for (const doc of sample.excerptIn) {
      it(`${doc} shows an excerpt of ${sample.file}, unchanged`, () => {
        const shown = excerpts(doc, sample.file);
        expect(shown).not.toEqual([]);
        for (const excerpt of shown) expect(file.includes(excerpt), excerpt).toBe(true);
      });
    }

    it(`${sample.file}: SIGTERM with a delivery and a read in hand exits 0 within 30 s, the change handled once`, { timeout: 90_000 }, () =>
      sigtermWithWorkInHand(sample),
    );

    it(
      `${sample.file}: with a callback that never ends, SIGTERM exits 0 within 30 s; the next process takes the work over`,
      { timeout: 90_000 },
      () =>
        sigtermWithHungCallback({
          file: sample.file,
          fulfilled: `paid ${sample.order}`,
          setup: (fake) => fake.setOrder({ externalId: sample.order, settlement: { status: 'Settled', tradeId: 't-7' } }),
          event: { eventId: 'evt-hung-1', type: 'otc.trade.settled', tradeId: 't-7' },
          ...(sample.env === undefined ? {} : { env: sample.env }),
        }),
    );
  }
});

describe('examples/shutdown/probes.ts with the service down', () => {
  it('starts, is live and ready: an outage never fails its liveness', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const probes = await freePort();
    const child = run('examples/shutdown/probes.ts', {
      CHECKOUT_BASE_URL: `http://127.0.0.1:${await freePort()}`, // nothing listens there: connection refused
      CHECKOUT_PARTNER_ID: PARTNER.partnerId,
      CHECKOUT_PARTNER_SECRET: PARTNER.partnerSecret,
      WEBHOOK_SIGNING_SECRET: SIGNING_SECRET,
      PORT: String(port),
      PROBE_PORT: String(probes),
    });
    await listening(`http://127.0.0.1:${port}/webhooks`, child);
    const status = (probe: string) =>
      fetch(`http://127.0.0.1:${probes}/${probe}`).then(
        async (answer) => (await answer.text(), answer.status),
        () => 0,
      );
    expect(await eventually(async () => (await status('startupz')) === 200, 10_000), child.err()).toBe(true);
    // reads fail for 10 s (the tracker holds back to probe reads): the process is alive all along
    for (let second = 0; second < 10; second += 1) {
      expect(await status('livez')).toBe(200);
      expect(await status('readyz')).toBe(200); // its store answers: it can take deliveries
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    await stopWithin(child);
  });
});
