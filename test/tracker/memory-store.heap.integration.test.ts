import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MAX_TRACKED_EVENT_BYTES } from 'checkout-partner-sdk/tracker';
import { describe, expect, it } from 'vitest';

// The store's heap per nudged record, measured in a subprocess of its own (--expose-gc): an integration test.
describe('MemoryStatusStore memory', () => {
  it('keeps a record nudged with a 200 KB event in a few KB (the event projection), not the event', () => {
    const script = fileURLToPath(new URL('./fixtures/nudged-heap.ts', import.meta.url));
    const output = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', script], {
      encoding: 'utf8',
      timeout: 60_000,
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
    });
    const { bytesPerRecord, records } = JSON.parse(output) as { bytesPerRecord: number; records: number };
    expect(records).toBe(200);
    expect(bytesPerRecord).toBeGreaterThan(0);
    // the projection's JSON is at most 2 KiB; as objects in the heap, with the record, a few KB
    expect(bytesPerRecord).toBeLessThan(3 * MAX_TRACKED_EVENT_BYTES);
  }, 60_000);
});
