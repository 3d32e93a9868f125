import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { excerpts, ROOT, sigtermWithWorkInHand, tsBlocks, type ShutdownSample } from './shutdown-samples.js';

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
  { file: 'examples/shutdown/webhooks.ts', verbatimIn: ['docs/webhooks.md'], excerptIn: [], order: 'order-of-t-7', waitsForRead: true },
  {
    // a probe server beside the app's: the shutdown closes both
    file: 'examples/shutdown/probes.ts',
    verbatimIn: [],
    excerptIn: ['docs/tracker.md'],
    order: 'order-42',
    waitsForRead: false,
    env: { PROBE_PORT: String(probePort) },
    whileUp: async () => {
      for (const probe of ['livez', 'readyz']) {
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
  }
});
