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
 * The whole body as UTF-8 text (as `Response.text()` decodes it), read as a stream and counted on
 * the decoded bytes (fetch has already undone gzip/br): past `maxBytes` the stream is cancelled,
 * which aborts the request and closes its connection, and {@link BodyTooLarge} is thrown.
 *
 * It runs inside the attempt: the read is bounded by the attempt's timeout and retried like a
 * network error, and an error body is capped like any other.
 */
export async function readBody(response: Response, maxBytes: number): Promise<string> {
  const { body } = response;
  if (body === null) return '';
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
