import { toHex } from '../internal/hex.js';
import { typeName } from '../internal/type-name.js';
import { checkOwner } from './arguments.js';

export function claimOwner(options: unknown): string | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`claim options must be an object { owner? }, got ${typeName(options)}`);
  }
  const { owner } = options as { owner?: unknown };
  if (owner === undefined) return undefined;
  checkOwner(owner);
  return owner;
}

const encoder = new TextEncoder();

/** The lease id of every claim under `owner`, the same after a restart: the shared stores find an owner's claims by it. */
export async function ownerLeaseId(owner: string): Promise<string> {
  const digest = new Uint8Array(
    await globalThis.crypto.subtle.digest('SHA-256', encoder.encode(`checkout-partner-sdk:event-owner:${owner}`)),
  );
  const bytes = digest.slice(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80; // version 8: a custom UUID
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // the RFC 9562 variant
  const hex = toHex(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
