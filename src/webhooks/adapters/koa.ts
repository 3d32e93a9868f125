import { typeName } from '../../internal/type-name.js';
import type { DeliveryInput } from '../engine/delivery-types.js';
import type { WebhookEngine } from '../engine/lifecycle.js';
import {
  deliverToNode,
  isNodeRequest,
  isNodeResponse,
  nodeDeliveryInput,
  type KeptBody,
  type NodeRequestLike,
  type NodeResponseLike,
} from './node.js';

/** The part of a Koa context the `koa` adapter uses, typed by shape; Koa 3's `Context` fits, body parser or not. */
export interface KoaContextLike {
  /** The Node request (`IncomingMessage`), read when no body parser kept the raw body. */
  readonly req: NodeRequestLike;
  /** The Node response (`ServerResponse`) the answer is written to. */
  readonly res: NodeResponseLike;
  /** Koa's request, whose `rawBody` (kept by @koa/bodyparser, koa-bodyparser) is the raw body; `& object` fits one without. */
  readonly request: KeptBody & object;
  /** Set to `false` by the adapter, so Koa leaves the response to it. */
  respond?: boolean | undefined;
}

export function koaDeliveryInput(ctx: KoaContextLike): DeliveryInput {
  if (
    ctx === null ||
    typeof ctx !== 'object' ||
    !isNodeRequest(ctx.req) ||
    !isNodeResponse(ctx.res) ||
    ctx.request === null ||
    typeof ctx.request !== 'object'
  ) {
    throw new TypeError(`koa takes a Koa context (with ctx.req, ctx.res and ctx.request), got ${typeName(ctx)}`);
  }
  return nodeDeliveryInput(ctx.req, { framework: 'koa', kept: ctx.request });
}

export function koaAdapter(engine: WebhookEngine): (ctx: KoaContextLike) => Promise<void> {
  return async function koa(ctx: KoaContextLike): Promise<void> {
    const input = koaDeliveryInput(ctx);
    // Koa then leaves ctx.res to the adapter (and ctx.status reads the status written)
    ctx.respond = false;
    await deliverToNode(engine, ctx.res, input);
  };
}
