/** A body past its limit (`ResponseTooLargeError` once mapped). */
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
 * The whole body as UTF-8 text, counted on the decoded bytes: past `maxBytes` the stream is
 * cancelled (closing the connection) and {@link BodyTooLarge} thrown. `framed`: the runtime's own
 * fetch, which delivers no more than the declared length; only then is `text()` trusted with it.
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
    // UTF-8 never takes fewer bytes than UTF-16 code units: a string past the cap came from a body past it
    const text = await response.text();
    if (text.length > maxBytes) throw new BodyTooLarge(maxBytes, response.status, response.headers);
    return text;
  }
  return readStream(response, body, maxBytes);
}

/** The declared length of the bytes fetch hands over (none with a content coding). */
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
