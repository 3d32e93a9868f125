import type { StatusKind } from '../kinds.js';

const FNV_OFFSET = 0x6c62272e07bb014262b821756295c58dn;
const FNV_PRIME = 0x1000000000000000000013bn;
const MASK = (1n << 128n) - 1n;
const encoder = new TextEncoder();

/**
 * A version 8 UUID of the record, its last handled status's time (each commit moves it) and the new
 * status. FNV-1a 128, not a crypto hash: needed synchronously on every runtime, it guards no secret.
 */
export function changeId(kind: StatusKind, externalId: string, handledAt: number | undefined, status: string | null): string {
  let hash = FNV_OFFSET;
  for (const byte of encoder.encode(JSON.stringify([kind, externalId, handledAt ?? null, status]))) {
    hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & MASK;
  }
  const hex = hash.toString(16).padStart(32, '0');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20)}`;
}
