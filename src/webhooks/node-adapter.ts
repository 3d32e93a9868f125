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
  /** The status to answer with; the handler sets it. */
  statusCode: number;
  /** Whether the headers went out already (then the handler does not answer again). */
  readonly headersSent?: boolean | undefined;
  /** Sets a response header. */
  setHeader(name: string, value: string): unknown;
  /** Sends the body and ends the response. */
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
    async readBody(limit: number): Promise<BodyResult> {
      const body = req.body;
      if (body instanceof Uint8Array || typeof body === 'string') {
        const bytes = typeof body === 'string' ? encoder.encode(body) : body;
        return bytes.byteLength > limit ? TOO_LARGE : bytes;
      }
      if (body !== undefined && body !== null && req.readableEnded !== false) throw new RawBodyUnavailableError(PARSED_BODY);
      if (req.readableEnded === true) throw new RawBodyUnavailableError(CONSUMED_STREAM);
      const declared = declaredLength(headers);
      if (declared !== undefined && declared > limit) return TOO_LARGE;
      return readStreamBody(req, limit);
    },
  };
}

/** Writes `response` to a Node response, unless something already did. */
export function writeNodeResponse(res: NodeResponseLike, response: PlainResponse): void {
  if (res.headersSent === true) return;
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  // the rest of an oversized body is not read: close the connection rather than drain it
  if (response.status === 413) res.setHeader('connection', 'close');
  res.end(response.body);
}
