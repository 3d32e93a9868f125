import { typeName } from '../../internal/type-name.js';
import { declaredLength, readStreamBody, TOO_LARGE, type BodyResult } from '../engine/body.js';
import type { DeliveryInput, PlainResponse } from '../engine/delivery-types.js';
import type { WebhookEngine } from '../engine/lifecycle.js';
import { RawBodyUnavailableError } from '../engine/raw-body-error.js';
import { nodeFramework, rawBodyFix, type Framework } from './raw-body-fix.js';

/** The part of a Node request the `node` adapter uses, typed by shape: `IncomingMessage`, Express's and NestJS's requests fit. */
export interface NodeRequestLike extends AsyncIterable<unknown> {
  /** The request method (`IncomingMessage.method`). */
  readonly method?: string | undefined;
  /** Lowercased header names, as node:http gives them. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** What a body parser left: bytes (`express.raw`) or text (`express.text`) are used as the raw body. */
  readonly body?: unknown;
  /** Raw bytes a framework kept beside a parsed body (NestJS with `rawBody: true`); used before `body`. */
  readonly rawBody?: unknown;
  /** `true` once the stream was read to its end (by a body parser, when the adapter did not read it). */
  readonly readableEnded?: boolean | undefined;
}

/** Whether a request's body stream was read to its end. */
export interface RequestEndState {
  /** `true` once the stream was read to its end. */
  readonly readableEnded?: boolean | undefined;
}

/** The part of a Node response the `node` adapter uses: node:http's `ServerResponse` and Express's `Response` fit. */
export interface NodeResponseLike {
  /** The status to answer with; the handler sets it. */
  statusCode: number;
  /** Whether the headers went out already (then the handler does not answer again). */
  readonly headersSent?: boolean | undefined;
  /** The request it answers (`ServerResponse.req`): a body not read to its end closes the connection. */
  readonly req?: RequestEndState | undefined;
  /** Sets a response header. */
  setHeader(name: string, value: string): unknown;
  /** Sends the body and ends the response. */
  end(chunk: string): unknown;
}

const encoder = new TextEncoder();

export function isNodeRequest(value: unknown): value is NodeRequestLike {
  return value !== null && typeof value === 'object' && typeof (value as NodeRequestLike)[Symbol.asyncIterator] === 'function';
}

export function isNodeResponse(value: unknown): value is NodeResponseLike {
  const res = value as NodeResponseLike;
  return value !== null && typeof value === 'object' && typeof res.end === 'function' && typeof res.setHeader === 'function';
}

/** The Node request's headers as Web `Headers` (a header that `Headers` rejects is left out). */
function toHeaders(raw: NodeRequestLike['headers']): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (value === undefined) continue;
    for (const item of typeof value === 'string' ? [value] : value) {
      try {
        headers.append(name, item);
      } catch {
        // not a valid header for fetch's Headers; no header the handler needs is like that
      }
    }
  }
  return headers;
}

/** Where a framework keeps what its body parser left: raw bytes (`rawBody`) and the parsed or raw `body`. */
export interface KeptBody {
  /** Raw bytes a framework kept beside the parsed body (NestJS `rawBody: true`, fastify-raw-body, @koa/bodyparser). */
  readonly rawBody?: unknown;
  /** The body a parser left: raw bytes or text are used as the raw body; a parsed object is refused with the fix. */
  readonly body?: unknown;
}

function keptBytes(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  return typeof value === 'string' ? encoder.encode(value) : undefined;
}

/** A Node request as a delivery: the body a parser kept (`rawBody`, else `body`), else the stream; `from` names the framework. */
export function nodeDeliveryInput(
  req: NodeRequestLike,
  from: { framework: Framework; kept: KeptBody } = { framework: nodeFramework(req), kept: req },
): DeliveryInput {
  const headers = toHeaders(req.headers);
  return {
    method: req.method,
    headers,
    async readBody(limit: number, signal?: AbortSignal): Promise<BodyResult> {
      const { framework, kept } = from;
      const bytes = keptBytes(kept.rawBody) ?? keptBytes(kept.body);
      if (bytes !== undefined) return bytes.byteLength > limit ? TOO_LARGE : bytes;
      const parsed = kept.body !== undefined && kept.body !== null;
      if (parsed && req.readableEnded !== false) throw new RawBodyUnavailableError(rawBodyFix(framework, 'parsed'));
      if (req.readableEnded === true) throw new RawBodyUnavailableError(rawBodyFix(framework, 'consumed'));
      const declared = declaredLength(headers);
      if (declared !== undefined && declared > limit) return TOO_LARGE;
      return readStreamBody(req, limit, signal);
    },
  };
}

/**
 * Writes `response` unless something already did. A body not read to its end, or too large, closes the connection (over
 * HTTP/2, the stream): draining the rest would let a stalling sender hold it, and the server's shutdown, open.
 */
export function writeNodeResponse(res: NodeResponseLike, response: PlainResponse): void {
  if (res.headersSent === true) return;
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  // set, not left to Node: a Content-Length set earlier (Koa sets one for a ctx.body middleware put there) would misframe the answer
  res.setHeader('content-length', String(encoder.encode(response.body).byteLength));
  const cutOff = response.status === 413 || res.req?.readableEnded === false;
  // node:http2's compat response (`res.stream`) has no Connection header (it drops it with a
  // warning): its stream is closed instead (RST_STREAM NO_ERROR once the answer is out, RFC 9113 §8.1)
  const stream = (res as { stream?: { close?: unknown } }).stream;
  const http2 = stream !== null && typeof stream === 'object' && typeof stream.close === 'function';
  if (cutOff && !http2) res.setHeader('connection', 'close');
  res.end(response.body);
  if (cutOff && http2) (stream as { close(): void }).close();
}

export function deliverToNode(engine: WebhookEngine, res: NodeResponseLike, input: DeliveryInput): Promise<void> {
  return engine.deliver(input).then((response) => writeNodeResponse(res, response));
}

/** `handler.node(req, res)`: node:http, Express and NestJS (on Express). */
export function nodeAdapter(engine: WebhookEngine): (req: NodeRequestLike, res: NodeResponseLike) => void {
  return function node(req: NodeRequestLike, res: NodeResponseLike): void {
    if (!isNodeRequest(req)) {
      throw new TypeError(
        `node takes a Node request (IncomingMessage), got ${typeName(req)}; ` +
          'in Fastify use handler.fastify(request, reply), in Koa handler.koa(ctx)',
      );
    }
    if (!isNodeResponse(res)) throw new TypeError(`node takes a Node response (ServerResponse), got ${typeName(res)}`);
    void deliverToNode(engine, res, nodeDeliveryInput(req));
  };
}
