import { declaredLength, readStreamBody, TOO_LARGE, type BodyResult } from './body.js';
import type { DeliveryInput } from './delivery.js';
import { RawBodyUnavailableError } from './raw-body-error.js';

/**
 * The part of a Node request the `node` adapter uses: node:http's `IncomingMessage`, Express's
 * `Request` and Fastify's `request.raw` all fit. Typed structurally so this entry needs no Node types.
 */
export interface NodeRequestLike extends AsyncIterable<unknown> {
  /** The request method (`IncomingMessage.method`). */
  readonly method?: string | undefined;
  /** Lowercased header names, as node:http gives them. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** What a body parser left: bytes (`express.raw`) or text (`express.text`) are used as the raw body. */
  readonly body?: unknown;
  /** `true` once the stream was read to its end (by a body parser, when the adapter did not read it). */
  readonly readableEnded?: boolean | undefined;
}

/** The part of a Node response the `node` adapter uses: node:http's `ServerResponse` and Express's `Response` fit. */
export interface NodeResponseLike {
  statusCode: number;
  readonly headersSent?: boolean | undefined;
  /** The request it answers (`ServerResponse.req`): a body not read to its end closes the connection. */
  readonly req?: { readonly readableEnded?: boolean | undefined } | undefined;
  setHeader(name: string, value: string): unknown;
  end(chunk: string): unknown;
}

/** What the handler answers, before it becomes a `Response` or is written to a Node response. */
export interface PlainResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const PARSED_BODY =
  'The webhook route received a parsed request body: a body parser (such as express.json()) consumed the raw body ' +
  'that the signature is computed over. Mount the webhook handler without a JSON parser in front of it, or with ' +
  "express.raw({ type: 'application/json' }) on this route, e.g. " +
  "app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => handler.node(req, res)).";

const CONSUMED_STREAM =
  'The webhook route received a request whose body stream was already read by something else and left no raw body. ' +
  'Give the handler the raw body: no body parser on this route, or one that keeps the bytes ' +
  "(express.raw({ type: 'application/json' }), or a Fastify content-type parser with parseAs: 'buffer').";

const encoder = new TextEncoder();

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

/** A Node request as a delivery: the body from `req.body` when a raw/text parser left it, else read from the stream. */
export function nodeDeliveryInput(req: NodeRequestLike): DeliveryInput {
  const headers = toHeaders(req.headers);
  return {
    method: req.method,
    headers,
    async readBody(limit: number, signal?: AbortSignal): Promise<BodyResult> {
      const body = req.body;
      if (body instanceof Uint8Array || typeof body === 'string') {
        const bytes = typeof body === 'string' ? encoder.encode(body) : body;
        return bytes.byteLength > limit ? TOO_LARGE : bytes;
      }
      if (body !== undefined && body !== null && req.readableEnded !== false) throw new RawBodyUnavailableError(PARSED_BODY);
      if (req.readableEnded === true) throw new RawBodyUnavailableError(CONSUMED_STREAM);
      const declared = declaredLength(headers);
      if (declared !== undefined && declared > limit) return TOO_LARGE;
      return readStreamBody(req, limit, signal);
    },
  };
}

/**
 * Writes `response` to a Node response, unless something already did. The connection is closed
 * after it when the request's body was not read to its end (`res.req.readableEnded === false`: a
 * body cut off at the response deadline or by `drain()`, or never read) or was too large: draining
 * the rest would let a sender that stalls hold the connection, and the server's shutdown, open.
 */
export function writeNodeResponse(res: NodeResponseLike, response: PlainResponse): void {
  if (res.headersSent === true) return;
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  if (response.status === 413 || res.req?.readableEnded === false) res.setHeader('connection', 'close');
  res.end(response.body);
}
