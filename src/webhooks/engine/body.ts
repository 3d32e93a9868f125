import { CheckoutError } from '../../errors.js';
import { untilAborted } from '../../internal/abort.js';
import { escapeControl } from '../../internal/quote.js';
import { RawBodyUnavailableError } from './raw-body-error.js';

/** Returned instead of the body once it passes the limit. */
export const TOO_LARGE: unique symbol = Symbol('too-large');
export type BodyResult = Uint8Array | typeof TOO_LARGE;

export class BodyAbortedError extends CheckoutError {
  override readonly name = 'BodyAbortedError' as const;
  constructor(cause: unknown) {
    const reason = cause instanceof Error ? escapeControl(cause.message).slice(0, 200) : 'the stream failed';
    super(`The request body did not arrive whole (the sender closed the connection?): ${reason}`, { cause });
  }
}

export function declaredLength(headers: Headers): number | undefined {
  const value = headers.get('content-length');
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

class BoundedBuffer {
  readonly #limit: number;
  readonly #chunks: Uint8Array[] = [];
  #length = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

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

/** Past `limit` (declared or counted) the rest is cancelled, not read; an abort cancels it too, so a stalled sender holds nothing. */
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

/** Past `limit` the rest is discarded (the 413 needs a healthy connection); an abort leaves the stream to the `connection: close`. */
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

async function discard(iterator: AsyncIterator<unknown>): Promise<void> {
  try {
    for (let r = await iterator.next(); r.done !== true; r = await iterator.next()) {
      // dropped
    }
  } catch {
    // the connection closed under it: nothing more to read
  }
}
