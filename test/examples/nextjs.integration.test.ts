// The shipped Next.js route handlers (examples/webhooks/nextjs-*.ts) in a fresh Next.js project with
// the packed SDK: `next build` with no secret in the environment (as in CI or a Docker build, where
// they exist only at run time), then `next start` pointed at the fake's real server, reached by a
// signed delivery and an order read.
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createEvent, createFakeCheckout, deliverEvent } from 'checkout-partner-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/free-port.js';
import { childEnv, packedProject, registryUsable, ROOT, run, start, type PackedProject, type RunningChild } from './packed-project.js';

/** A route whose module makes a handler and a tracker with no store: nothing of theirs in a build's output. */
const MODULE_SCOPE_ROUTE = `import { CheckoutClient } from 'checkout-partner-sdk';
import { createStatusTracker } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';

const client = new CheckoutClient({ baseUrl: 'http://127.0.0.1:9', partnerId: 'p', partnerSecret: 's' });
const tracker = createStatusTracker({ client, onChange: () => {} });
const handler = createWebhookHandler({ secret: 'whsec_build', client, tracker, onEvent: () => {} });

export async function POST(request: Request): Promise<Response> {
  tracker.start();
  return handler.handle(request);
}
`;

/**
 * The lines of a build's output that name the SDK: its own notices and warnings, or a tool's warning
 * about one of its files (the project's temp dir, named after the SDK too, aside).
 */
const sdkLines = (output: string, dir: string) =>
  output
    .replaceAll(dir, '<project>')
    .split('\n')
    .filter((line) => line.includes('checkout-partner-sdk'));

const usable = await registryUsable('test/examples/nextjs.integration.test.ts (npm install next)');

describe.skipIf(!usable)('examples/webhooks/nextjs-*.ts in a Next.js app (current major, from the registry)', () => {
  let project: PackedProject;
  const partner = { partnerId: 'next-partner', partnerSecret: 'next-secret' };
  const fake = createFakeCheckout({ partners: [partner] });
  let nextServer: RunningChild | undefined;

  beforeAll(async () => {
    project = await packedProject('nextjs', {
      next: '16',
      react: '19',
      'react-dom': '19',
      typescript: '5', // the TypeScript Next.js drives by its API (7 is the native port)
      '@types/react': '19',
      '@types/node': '24',
    });
    const app = join(project.dir, 'app', 'api');
    await mkdir(join(app, 'webhooks'), { recursive: true });
    await mkdir(join(app, 'webhooks-edge'), { recursive: true });
    await mkdir(join(app, 'orders', '[externalId]'), { recursive: true });
    await copyFile(join(ROOT, 'examples/webhooks/nextjs-route.ts'), join(app, 'webhooks', 'route.ts'));
    await copyFile(join(ROOT, 'examples/webhooks/nextjs-edge-route.ts'), join(app, 'webhooks-edge', 'route.ts'));
    await copyFile(join(ROOT, 'examples/webhooks/nextjs-order-route.ts'), join(app, 'orders', '[externalId]', 'route.ts'));
    // a handler and a tracker made at module scope, with the in-memory default stores: the build
    // evaluates this module, and constructing either prints nothing (their notice comes at first use)
    await mkdir(join(app, 'module-scope'), { recursive: true });
    await writeFile(join(app, 'module-scope', 'route.ts'), MODULE_SCOPE_ROUTE);
  }, 900_000);

  afterAll(async () => {
    await nextServer?.stop();
    await project?.remove();
  });

  it('next build (Turbopack) succeeds with no CHECKOUT_* or WEBHOOK_* variable set', { timeout: 600_000 }, async () => {
    const env = childEnv({ NEXT_TELEMETRY_DISABLED: '1' });
    expect(Object.keys(env).filter((name) => /^(CHECKOUT|WEBHOOK)_/.test(name))).toEqual([]);
    const output = await run(process.execPath, ['node_modules/next/dist/bin/next', 'build'], { cwd: project.dir, env, timeoutMs: 540_000 });
    expect(output).toMatch(/ƒ \/api\/webhooks/);
    expect(output).toMatch(/ƒ \/api\/webhooks-edge/);
    expect(output).toMatch(/ƒ \/api\/orders\/\[externalId\]/);
    expect(output).not.toMatch(/missing baseUrl/);
    expect(output).toMatch(/ƒ \/api\/module-scope/);
    expect(sdkLines(output, project.dir)).toEqual([]);
  });

  it('next start with the secrets set: a signed delivery gets 200 and the order route reads the fake', { timeout: 120_000 }, async () => {
    const server = await fake.listen();
    try {
      fake.setOrder({ externalId: 'order-of-t-1', currency: 'USDT', settlement: { status: 'Settled', tradeId: 't-1' } });
      const port = await freePort();
      const secret = 'whsec_next';
      nextServer = start(process.execPath, ['node_modules/next/dist/bin/next', 'start', '-p', String(port), '-H', '127.0.0.1'], {
        cwd: project.dir,
        env: childEnv({
          NEXT_TELEMETRY_DISABLED: '1',
          CHECKOUT_BASE_URL: server.url,
          CHECKOUT_PARTNER_ID: partner.partnerId,
          CHECKOUT_PARTNER_SECRET: partner.partnerSecret,
          WEBHOOK_SIGNING_SECRET: secret,
        }),
      });
      const base = `http://127.0.0.1:${port}`;
      const up = await eventually(async () => {
        if (nextServer?.process.exitCode !== null) return true; // exited: reported below
        // the root (no page there: Next's 404), so nothing reaches the fake before the delivery
        return fetch(`${base}/`).then(
          () => true,
          () => false,
        );
      }, 60_000);
      expect(up, nextServer.output()).toBe(true);
      expect(nextServer.process.exitCode, nextServer.output()).toBeNull();

      const report = await deliverEvent(`${base}/api/webhooks`, createEvent('otc.trade.settled', { tradeId: 't-1' }), {
        secret,
        maxAttempts: 1,
      });
      expect(report.deliveries.map((delivery) => delivery.status)).toEqual([200]);
      // the handler, made on that first request, confirmed the event with a status read on the fake
      expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        'POST /api/v1/partner-api/auth/token 200',
        'GET /api/v1/partner-api/orders/by-external-id/order-of-t-1 200',
      ]);
      expect(await eventually(() => nextServer!.output().includes('settled order-of-t-1'), 10_000), nextServer.output()).toBe(true);

      // the Edge route (no AbortSignal.any there): a signed event, confirmed by its own status read
      const before = fake.requests.length;
      const edge = await deliverEvent(`${base}/api/webhooks-edge`, createEvent('otc.trade.settled', { tradeId: 't-1' }), {
        secret,
        maxAttempts: 1,
      });
      expect(
        edge.deliveries.map((delivery) => delivery.status),
        nextServer.output(),
      ).toEqual([200]);
      expect(fake.requests.slice(before).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        'POST /api/v1/partner-api/auth/token 200',
        'GET /api/v1/partner-api/orders/by-external-id/order-of-t-1 200',
      ]);
      expect(await eventually(() => nextServer!.output().includes('edge settled order-of-t-1'), 10_000), nextServer.output()).toBe(true);

      const order = await fetch(`${base}/api/orders/order-of-t-1`);
      expect(order.status).toBe(200);
      expect(await order.json()).toEqual({ externalId: 'order-of-t-1', status: 'Settled' });
      expect((await fetch(`${base}/api/orders/missing`)).status).toBe(404);
    } finally {
      await nextServer?.stop();
      await server.close();
    }
  });

  it('next build --webpack succeeds with no secret set too', { timeout: 600_000 }, async () => {
    const env = childEnv({ NEXT_TELEMETRY_DISABLED: '1' });
    const output = await run(process.execPath, ['node_modules/next/dist/bin/next', 'build', '--webpack'], {
      cwd: project.dir,
      env,
      timeoutMs: 540_000,
    });
    expect(output).toMatch(/webpack/i);
    expect(output).toMatch(/ƒ \/api\/webhooks/);
    expect(output).toMatch(/ƒ \/api\/module-scope/);
    expect(sdkLines(output, project.dir)).toEqual([]);
  });
});
