import type { INestApplication } from '@nestjs/common';
import type { WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../../examples/webhooks/nestjs.js';
import { postSigned } from './framework-helpers.js';
import { deferred, makeClient, memoryLogger, mockCheckout, SECRET } from '../helpers.js';

mockCheckout({ bypassLoopback: true });

const apps: INestApplication[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** The example's Nest app (WebhooksController calling handler.node(req, res)) on a free loopback port. */
async function start(overrides: Partial<WebhookHandlerOptions> = {}, rawBody = true) {
  const onEvent = vi.fn();
  const { entries, logger } = memoryLogger();
  const app = await createApp({ secret: SECRET, client: makeClient(), onEvent, logger, ...overrides }, { rawBody });
  apps.push(app);
  await app.listen(0, '127.0.0.1');
  return { url: `${await app.getUrl()}/webhooks`, onEvent, entries, app };
}

// spaces Nest's parsed body would not keep: only the raw bytes verify
const body = `{ "eventId": "evt-nest",  "type": "custom.nest", "city": "São Paulo" }`;

const post = (url: string) => postSigned(url, body);

describe('node(req, res) in a NestJS 11 controller', () => {
  it('verifies req.rawBody kept by NestFactory.create(AppModule, { rawBody: true })', async () => {
    const { url, onEvent, entries } = await start();
    expect((await post(url)).status).toBe(200);
    expect((await post(url)).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
    expect(onEvent).toHaveBeenCalledWith({ event: JSON.parse(body), confirmed: false });
    expect(entries.map((e) => e.outcome)).toEqual(['handled', 'duplicate']);
  });

  it('answers 500 naming { rawBody: true } when Nest parsed the body and kept no raw bytes', async () => {
    const { url, onEvent, entries } = await start({}, false);
    const response = await post(url);
    expect(response.status).toBe(500);
    expect(response.text).toContain('NestFactory.create(AppModule, { rawBody: true })');
    expect(response.text).toContain("express.raw({ type: 'application/json' })"); // Nest on Express looks like Express
    expect(onEvent).not.toHaveBeenCalled();
    expect(entries).toMatchObject([{ outcome: 'misconfigured', status: 500 }]);
  });

  it('app.close() drains (beforeApplicationShutdown): it waits for an event still in hand after its 503', async () => {
    const hold = deferred();
    const held = vi.fn(() => hold.promise);
    const { url, app, entries } = await start({ onEvent: held, responseTimeoutMs: 100 });
    apps.splice(apps.indexOf(app), 1); // closed here
    expect((await post(url)).status).toBe(503); // answered at responseTimeoutMs; onEvent still runs
    expect(held).toHaveBeenCalledOnce();
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    hold.resolve();
    await closing;
    expect(entries.map((e) => [e.outcome, e.late])).toEqual([
      ['timeout', undefined],
      ['handled', true],
    ]);
  });
});
