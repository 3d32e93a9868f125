import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, postSigned, watchedHandler as makeHandler } from './framework-helpers.js';
import { mockCheckout } from '../helpers.js';

mockCheckout({ bypassLoopback: true });
const closeLater = closeAfterEach();

async function listen(app: express.Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  closeLater(() => new Promise((resolve) => server.close(resolve)));
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
}

// spaces a parsed body would not keep: only the raw bytes verify
const body = `{ "eventId": "evt-express",  "type": "custom.express" }`;

const post = (url: string) => postSigned(url, body);

describe('node(req, res) in Express 5', () => {
  it('takes req.rawBody kept by express.json({ verify }) beside the parsed body', async () => {
    const { handler, onEvent } = makeHandler();
    const app = express();
    app.use(
      express.json({
        verify: (req, _res, buffer) => void Object.assign(req, { rawBody: buffer }),
      }),
    );
    app.post('/webhooks', (req, res) => handler.node(req, res));
    expect((await post(await listen(app))).status).toBe(200);
    expect(onEvent).toHaveBeenCalledWith({ event: JSON.parse(body), confirmed: false });
  });

  it("takes the text of express.text({ type: 'application/json' })", async () => {
    const { handler, onEvent } = makeHandler();
    const app = express();
    app.post('/webhooks', express.text({ type: 'application/json' }), (req, res) => handler.node(req, res));
    expect((await post(await listen(app))).status).toBe(200);
    expect(onEvent).toHaveBeenCalledOnce();
  });

  it('answers 500 naming the Express and the NestJS fix after express.json(), and no other framework', async () => {
    const { handler, onEvent } = makeHandler();
    const app = express();
    app.use(express.json());
    app.post('/webhooks', (req, res) => handler.node(req, res));
    const response = await post(await listen(app));
    expect(response.status).toBe(500);
    expect(response.text).toContain("express.raw({ type: 'application/json' })");
    expect(response.text).toContain('{ rawBody: true }');
    expect(response.text).not.toMatch(/fastify|koa/i);
    expect(onEvent).not.toHaveBeenCalled();
  });
});
