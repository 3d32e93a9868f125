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

/**
 * The part of a Koa context the `koa` adapter uses. Typed structurally, so this entry needs no
 * Koa types; Koa 3's `Context` (with or without a body parser's additions) fits.
 */
export interface KoaContextLike {
  /** The Node request (`IncomingMessage`), read when no body parser kept the raw body. */
  readonly req: NodeRequestLike;
  /** The Node response (`ServerResponse`) the answer is written to. */
  readonly res: NodeResponseLike;
  /**
   * Koa's request: `rawBody` (kept by @koa/bodyparser and koa-bodyparser) is used as the raw body.
   * `& object`: a Koa request without a body parser's fields has none of these, and still fits.
   */
  readonly request: KeptBody & object;
  /** Set to `false` by the adapter, so Koa leaves the response to it. */
  respond?: boolean | undefined;
}

/** Checks the argument of `handler.koa` (a `TypeError` otherwise) and makes the delivery of `ctx`. */
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

/** `handler.koa(ctx)`. */
export function koaAdapter(engine: WebhookEngine): (ctx: KoaContextLike) => Promise<void> {
  return async function koa(ctx: KoaContextLike): Promise<void> {
    const input = koaDeliveryInput(ctx);
    // Koa then leaves ctx.res to the adapter (and ctx.status reads the status written)
    ctx.respond = false;
    await deliverToNode(engine, ctx.res, input);
  };
}
