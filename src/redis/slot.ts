export const CLUSTER_SLOTS = 16_384;

/** CRC-16/XMODEM, Redis Cluster's key hash. */
export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The slot of `key`: the CRC16 of its hash tag (between the first `{` and the next `}`, when not empty), else of the whole key. */
export function keySlot(key: string): number {
  const bytes = new TextEncoder().encode(key);
  const open = bytes.indexOf(0x7b);
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) % CLUSTER_SLOTS;
  }
  return crc16(bytes) % CLUSTER_SLOTS;
}
