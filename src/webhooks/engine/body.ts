import { CheckoutError } from '../../errors.js';
import { untilAborted } from '../../internal/abort.js';
import { escapeControl } from '../../internal/quote.js';
import { RawBodyUnavailableError } from './raw-body-error.js';

/** Returned instead of the body once it passes the limit. */
export const TOO_LARGE: unique symbol = Symbol('too-large');
export type BodyResult = Uint8Array | typeof TOO_LARGE;

/**
 * The request body stopped arriving before its end: the sender closed the connection (or the
 * stream failed under it). Nothing was verified or claimed; the delivery is answered `aborted`.
 */
export class BodyAbortedError extends CheckoutError {
  override readonly name = 'BodyAbortedError' as const;
  constructor(cause: unknown) {
    const reason = cause instanceof Error ? escapeControl(cause.message).slice(0, 200) : 'the stream failed';
    super(`The request body did not arrive whole (the sender closed the connection?): ${reason}`, { cause });
  }
}

/** The Content-Length a request declares, when it declares a valid one. */
export function declaredLength(headers: Headers): number | undefined {
  const value = headers.get('content-length');
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** Gathers chunks until the limit is passed; then it refuses more. */
class BoundedBuffer {
  readonly #limit: number;
  readonly #chunks: Uint8Array[] = [];
  #length = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Adds `chunk`; `false` once the total is over the limit. */
  push(chunk: Uint8Array): boolean {
    this.#length += chunk.byteLength;
    if (this.#length > this.#limit) return false;
    this.#chunks.push(chunk);
    return true;
  }

  bytes(): Uint8Array {
    if (this.#chunks.length === 1) return this.#chunks[0] as Uint8Array;
    const out = new Uint8Array(this.#length);
    let offset = 0;
    for (const chunk of this.#chunks) {
      out.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return out;
  }
}

/**
 * A `Request`'s raw body, or {@link TOO_LARGE} as soon as it passes `limit` bytes (declared by
 * Content-Length or counted while reading); the rest of the stream is then cancelled, not read.
 * When `signal` aborts first (the response deadline, or `drain()`), the stream is cancelled and
 * this rejects with the signal's reason, so a sender that stalls mid-body holds nothing.
 */
export async function readRequestBody(request: Request, limit: number, signal?: AbortSignal): Promise<BodyResult> {
  if (request.bodyUsed) {
    throw new RawBodyUnavailableError(
      'The webhook request body was already read (e.g. by request.json() or c.req.json()) before handler.handle(); ' +
        'pass the untouched Request, whose raw bytes the signature covers.',
    );
  }
  const declared = declaredLength(request.headers);
  if (declared !== undefined && declared > limit) {
    await request.body?.cancel().catch(() => undefined);
    return TOO_LARGE;
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const buffer = new BoundedBuffer(limit);
  try {
    for (;;) {
      const { done, value } = await untilAborted(reader.read(), signal);
      if (done) return buffer.bytes();
      if (!buffer.push(value)) {
        await reader.cancel().catch(() => undefined);
        return TOO_LARGE;
      }
    }
  } catch (error) {
    // not awaited: a cancel can wait on the read still pending, which is what the abort ends
    if (signal?.aborted === true) {
      void reader.cancel(signal.reason).catch(() => undefined);
      throw error;
    }
    throw new BodyAbortedError(error);
  }
}

const encoder = new TextEncoder();

/**
 * A Node request stream's raw body (any async iterable of chunks), or {@link TOO_LARGE} as soon
 * as it passes `limit`. Past the limit the chunks still arriving are discarded, not kept, so the
 * 413 can be written on a healthy connection; the response closes the connection. When `signal`
 * aborts first, this rejects with its reason at once and leaves the stream as it is: the response
 * is written next, with `connection: close`, which ends the connection and the stream with it.
 */
export async function readStreamBody(stream: AsyncIterable<unknown>, limit: number, signal?: AbortSignal): Promise<BodyResult> {
  const iterator = stream[Symbol.asyncIterator]();
  const buffer = new BoundedBuffer(limit);
  for (;;) {
    let next: IteratorResult<unknown, unknown>;
    try {
      next = await untilAborted(iterator.next(), signal);
    } catch (error) {
      if (signal?.aborted === true && error === signal.reason) throw error;
      throw new BodyAbortedError(error);
    }
    const { done, value } = next;
    if (done === true) return buffer.bytes();
    const chunk = typeof value === 'string' ? encoder.encode(value) : value;
    if (!(chunk instanceof Uint8Array)) throw new TypeError('The request stream yielded something other than bytes or text');
    if (!buffer.push(chunk)) {
      void discard(iterator);
      return TOO_LARGE;
    }
  }
}

/** Reads and drops what is left; the connection is closed after the 413, which ends this. */
async function discard(iterator: AsyncIterator<unknown>): Promise<void> {
  try {
    for (let r = await iterator.next(); r.done !== true; r = await iterator.next()) {
      // dropped
    }
  } catch {
    // the connection closed under it: nothing more to read
  }
}
