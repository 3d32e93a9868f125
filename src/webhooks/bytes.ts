import { describe } from '../internal/path.js';

/** A payload as the public functions accept it: the raw body as text or bytes. */
export type PayloadInput = string | Uint8Array | ArrayBuffer;

const encoder = new TextEncoder();

/** The payload's bytes (a string as UTF-8), or a `TypeError` naming the argument. */
export function payloadBytes(payload: unknown, name = 'payload'): Uint8Array {
  if (typeof payload === 'string') return encoder.encode(payload);
  if (payload instanceof Uint8Array) return payload;
  if (payload instanceof ArrayBuffer) return new Uint8Array(payload);
  if (ArrayBuffer.isView(payload)) return new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
  throw new TypeError(`${name} must be a string, a Uint8Array or an ArrayBuffer, got ${describe(payload)}`);
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Lowercase hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += HEX[byte];
  return out;
}

const SIGNATURE = /^(?:sha256=)?([0-9a-f]{64})$/;

/**
 * The 32 MAC bytes of a signature header value (`sha256=<hex>` or bare lowercase hex), or
 * `undefined` when it is not one: wrong length, not hex, another prefix.
 */
export function parseSignature(value: string): Uint8Array<ArrayBuffer> | undefined {
  const hex = SIGNATURE.exec(value)?.[1];
  if (hex === undefined) return undefined;
  const mac = new Uint8Array(32);
  for (let i = 0; i < 32; i += 1) mac[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return mac;
}
