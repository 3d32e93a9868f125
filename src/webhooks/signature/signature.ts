import { typeName } from '../../internal/type-name.js';
import { payloadData, signatureHex, type PayloadInput } from './bytes.js';
import type { Hmac } from './hmac.js';

/** The signing secret of the webhook endpoint, or a list of them while rotating: any match is valid. */
export type WebhookSecret = string | readonly string[];

/** What a custom {@link SignatureScheme} gets for each delivery. */
export interface SignatureSchemeInput {
  /** The raw body bytes, exactly as received. */
  readonly payload: Uint8Array;
  /** The value of the handler's `signatureHeader`, or `null` when the delivery has none. */
  readonly signature: string | null;
  /** Every request header, for schemes that sign a timestamp or read another header. */
  readonly headers: Headers;
  /** The handler's secrets (one, or several while rotating). */
  readonly secrets: readonly string[];
  /** Lowercase hex HMAC-SHA256 of `data` (a string is taken as UTF-8) under `secret`, with the handler's HMAC implementation. */
  readonly hmacSha256Hex: (secret: string, data: string | Uint8Array) => Promise<string>;
  /** Whether two strings are equal, in time that depends only on their lengths. */
  readonly timingSafeEqual: (a: string, b: string) => boolean;
}

/**
 * The handler's `scheme`: a signature check that replaces the default one. `true` accepts the delivery; `false` (or a throw)
 * answers 401. Compare MACs in constant time; e.g. for a provider that signs `${timestamp}.${body}`:
 * @example
 * const scheme: SignatureScheme = async ({ payload, signature, headers, secrets, hmacSha256Hex, timingSafeEqual }) => {
 *   const timestamp = headers.get('x-provider-timestamp');
 *   if (timestamp === null || signature === null) return false;
 *   const signed = `${timestamp}.${new TextDecoder().decode(payload)}`;
 *   for (const secret of secrets) if (timingSafeEqual(await hmacSha256Hex(secret, signed), signature)) return true;
 *   return false;
 * };
 */
export type SignatureScheme = (input: SignatureSchemeInput) => boolean | Promise<boolean>;

/** What `verifySignature` takes. */
export interface VerifySignatureInput {
  /** The raw body, exactly as received (a string is taken as UTF-8). */
  payload: PayloadInput;
  /** The signature header's value: `sha256=<hex>` or bare lowercase hex; `null`/`undefined` when absent (verifies `false`). */
  signature: string | null | undefined;
  /** The signing secret, or a list of them while rotating. */
  secret: WebhookSecret;
}

export type VerifySignature = (input: VerifySignatureInput) => Promise<boolean>;

export type SignPayload = (payload: PayloadInput, secret: string) => Promise<string>;

/** Checks `secret` is a non-blank string or a non-empty array of them, without copying it; the `TypeError` never shows a secret. */
export function checkSecret(secret: unknown, name = 'secret'): asserts secret is WebhookSecret {
  if (typeof secret === 'string') {
    const blank = blankSecret(secret);
    if (blank === undefined) return;
    throw new TypeError(`${name} must be a non-empty string, got ${blank}`);
  }
  if (!Array.isArray(secret) || secret.length === 0) {
    throw new TypeError(`${name} must be a non-empty string or a non-empty array of them, got ${typeName(secret)}`);
  }
  for (let index = 0; index < secret.length; index += 1) {
    const item: unknown = secret[index];
    const blank = typeof item === 'string' ? blankSecret(item) : typeName(item);
    if (blank !== undefined) throw new TypeError(`${name}[${index}] must be a non-empty string, got ${blank}`);
  }
}

/** What is wrong with a string secret, if anything; whitespace only is what an unset variable in a template gives. */
function blankSecret(secret: string): string | undefined {
  if (secret === '') return 'an empty string';
  if (secret.trim() === '') return 'a string of whitespace only';
  return undefined;
}

/** `secret` as a frozen, non-empty list of non-empty strings (a snapshot), or a `TypeError` that never shows it. */
export function secretList(secret: unknown, name = 'secret'): readonly string[] {
  checkSecret(secret, name);
  return Object.freeze(typeof secret === 'string' ? [secret] : [...secret]);
}

/** Signing and verification written once over an {@link Hmac} implementation. */
export interface Signatures {
  verifySignature: VerifySignature;
  signPayload: SignPayload;
  /** The default scheme on checked inputs, per delivery; synchronous where the HMAC implementation is. */
  verifyBytes(payload: Uint8Array, signature: string | null, secrets: readonly string[]): boolean | Promise<boolean>;
  hmacSha256Hex(secret: string, data: string | Uint8Array): Promise<string>;
}

export function timingSafeEqual(a: string, b: string): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') throw new TypeError('timingSafeEqual compares two strings');
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** A non-empty string secret (signing takes exactly one), or a `TypeError` that never shows it. */
function checkSigningSecret(secret: unknown): asserts secret is string {
  const blank = typeof secret === 'string' ? blankSecret(secret) : typeName(secret);
  if (blank !== undefined) throw new TypeError(`secret must be a non-empty string, got ${blank}`);
}

export function createSignatures(hmac: Hmac): Signatures {
  async function verifyRest(
    first: Promise<boolean>,
    rest: readonly string[],
    data: string | Uint8Array,
    mac: Uint8Array,
  ): Promise<boolean> {
    if (await first) return true;
    for (const secret of rest) if (await hmac.verify(secret, data, mac)) return true;
    return false;
  }

  function verifyChecked(
    data: string | Uint8Array,
    signature: string | null | undefined,
    secret: WebhookSecret,
  ): boolean | Promise<boolean> {
    if (typeof signature !== 'string') return false;
    const hex = signatureHex(signature);
    if (hex === undefined) return false;
    const mac = hmac.macFromHex(hex);
    if (typeof secret === 'string') return hmac.verify(secret, data, mac);
    for (let i = 0; i < secret.length; i += 1) {
      const match = hmac.verify(secret[i]!, data, mac);
      // a snapshot of the rest before awaiting: the caller's array may change meanwhile
      if (typeof match !== 'boolean') return verifyRest(match, secret.slice(i + 1), data, mac);
      if (match) return true;
    }
    return false;
  }

  return {
    verifyBytes: verifyChecked,
    async hmacSha256Hex(secret, data) {
      checkSigningSecret(secret);
      return hmac.signHex(secret, payloadData(data, 'data'));
    },
    async verifySignature(input) {
      if (input === null || typeof input !== 'object') {
        throw new TypeError(`verifySignature takes { payload, signature, secret }, got ${typeName(input)}`);
      }
      const { payload, signature, secret } = input;
      const data = payloadData(payload);
      if (signature !== undefined && signature !== null && typeof signature !== 'string') {
        throw new TypeError(`signature must be a string, null or undefined, got ${typeName(signature)}`);
      }
      checkSecret(secret);
      const verified = verifyChecked(data, signature, secret);
      return typeof verified === 'boolean' ? verified : await verified;
    },
    async signPayload(payload, secret) {
      const data = payloadData(payload);
      checkSigningSecret(secret);
      return `sha256=${await hmac.signHex(secret, data)}`;
    },
  };
}
