/** Thrown by {@link readBody} when a body passes its limit; the transport maps it to `ResponseTooLargeError`. */
export class BodyTooLarge extends Error {
  override readonly name = 'BodyTooLarge';
  constructor(
    readonly limitBytes: number,
    readonly status: number,
    readonly headers: Headers,
  ) {
    super(`the response body is larger than ${limitBytes} bytes`);
  }
}

const decoder = new TextDecoder();

/**
 * The whole body as UTF-8 text (as `Response.text()` decodes it), counted on the decoded bytes
 * (fetch has already undone gzip/br): past `maxBytes` the stream is cancelled, which aborts the
 * request and closes its connection, and {@link BodyTooLarge} is thrown.
 *
 * It runs inside the attempt: the read is bounded by the attempt's timeout and retried like a
 * network error, and an error body is capped like any other.
 *
 * `framed`: the response is the runtime's own fetch's, which delivers no more than HTTP's framing
 * declared. Only then is a body whose declared length is within the cap read whole by fetch's
 * `text()` (the cheaper read, and a status read's usual case); a custom fetch's Response (a wrapper
 * that dropped content-encoding but kept content-length, a body made in JS) is read as a stream and
 * cut off at the limit like any other, so its memory stays bounded too.
 */
export async function readBody(response: Response, maxBytes: number, framed: boolean): Promise<string> {
  const { body } = response;
  if (body === null) return '';
  const declared = declaredLength(response.headers);
  if (declared !== undefined && declared > maxBytes) {
    body.cancel().catch(() => undefined);
    throw new BodyTooLarge(maxBytes, response.status, response.headers);
  }
  if (declared !== undefined && framed) {
    // a runtime that undoes a content coding keeps content-encoding (Node, browsers, Deno) or drops
    // it together with content-length (whatwg/fetch#1729): a decoded body never passes as declared
    // fetch's own text(): no copy to an ArrayBuffer first; UTF-8 never takes fewer bytes than UTF-16
    // code units, so a string past the cap came from a body past it
    const text = await response.text();
    if (text.length > maxBytes) throw new BodyTooLarge(maxBytes, response.status, response.headers);
    return text;
  }
  return readStream(response, body, maxBytes);
}

/** The body's length when the response declares it for the bytes fetch hands over (no content coding), else `undefined`. */
function declaredLength(headers: Headers): number | undefined {
  const length = headers.get('content-length');
  if (length === null) return undefined;
  const coding = headers.get('content-encoding');
  if (coding !== null && coding !== 'identity') return undefined;
  const n = Number(length);
  return length !== '' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** The body read chunk by chunk, cancelled as soon as it passes `maxBytes`. */
async function readStream(response: Response, body: ReadableStream<Uint8Array>, maxBytes: number): Promise<string> {
  const reader = body.getReader();
  let first: Uint8Array | undefined;
  let rest: Uint8Array[] | undefined;
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      reader.cancel().catch(() => undefined);
      throw new BodyTooLarge(maxBytes, response.status, response.headers);
    }
    if (first === undefined) first = value;
    else (rest ??= []).push(value);
  }
  reader.releaseLock();
  if (first === undefined) return '';
  if (rest === undefined) return decoder.decode(first);
  const all = new Uint8Array(total);
  all.set(first, 0);
  let offset = first.byteLength;
  for (const chunk of rest) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoder.decode(all);
}
