import { readFileSync } from 'node:fs';
import { createFakeCheckout, deliverEvent } from 'checkout-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/free-port.js';
import { cleanup, heldService, HOLD_MS, listening, PARTNER, ROOT, run, stopWithin, tsBlocks } from './shutdown-samples.js';

// API.md "Operations": every shutdown sample in the README and docs, run as written, exits within a
// 30 s grace period with work in hand, loses and doubles nothing, and closes what it opened. The
// samples are the files under examples/shutdown/, which the docs show verbatim (checked first); each
// runs here in a child process against the fake service, behind a proxy that holds the status read
// in flight when SIGTERM arrives (shutdown-samples.ts). docs/tracker.md's Redis sample needs a
// redis-server: shutdown-redis.integration.test.ts.

const SIGNING_SECRET = 'whsec_shutdown_0123456789';

// `drain()` of the webhook handler waits for the delivery in hand (its read, then onEvent); the
// tracker's aborts a read in hand and gives the record back (it waits only for an onChange already
// running), so that change is handled after the restart, which watches order-42 again at start.
const SAMPLES = [
  { file: 'examples/shutdown/tracker-and-webhooks.ts', docs: ['docs/webhooks.md'], order: 'order-42', waitsForRead: false },
  { file: 'examples/shutdown/webhooks.ts', docs: ['docs/webhooks.md'], order: 'order-of-t-7', waitsForRead: true },
] as const;

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
      const service = await heldService(fake, `/orders/by-external-id/${sample.order}`);
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
