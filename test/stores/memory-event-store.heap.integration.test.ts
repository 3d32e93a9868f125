import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The store's heap per entry, measured in a subprocess of its own (--expose-gc): an integration test.
describe('MemoryEventStore memory', () => {
  it('holds 100k events in under 256 bytes each, and does not grow while its oldest entry stays', () => {
    const script = fileURLToPath(new URL('./fixtures/memory-per-entry.ts', import.meta.url));
    const output = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', script], {
      encoding: 'utf8',
      timeout: 60_000,
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
    });
    const { bytesPerEntry, size, churnSize, churnGrowthMB } = JSON.parse(output) as {
      bytesPerEntry: number;
      size: number;
      churnSize: number;
      churnGrowthMB: number;
    };
    expect(size).toBe(100_000);
    expect(bytesPerEntry).toBeGreaterThan(0);
    expect(bytesPerEntry).toBeLessThan(256);
    // 500,000 claims released behind an idle oldest entry leave no growth but the table's own (~1 MB)
    expect(churnSize).toBe(20_001);
    expect(churnGrowthMB).toBeLessThan(8);
  }, 60_000);
});
