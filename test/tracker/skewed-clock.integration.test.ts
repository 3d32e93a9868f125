import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Runs the fixture with its wall clock `skewMs` off, stepped by `stepMs` mid-onChange; its stdout lines. */
async function skewedTracker(
  skewMs: number,
  stepMs: number,
  stepAt: string,
): Promise<{ lines: string[]; code: number | null; stderr: string }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      join(ROOT, 'test/helpers/skewed-clock.mjs'),
      join(import.meta.dirname, 'fixtures', 'skewed-memory-child.ts'),
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'),
        CLOCK_SKEW_MS: String(skewMs),
        STEP_MS: String(stepMs),
        STEP_AT: stepAt,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { lines: stdout.split('\n').filter(Boolean), code, stderr };
}

it.each([
  ['5 min ahead, stepped forward 1 hour mid-onChange', 300_000, 3_600_000, 'mid-change'],
  ['5 min behind, stepped back 1 hour mid-onChange', -300_000, -3_600_000, 'mid-change'],
  ['5 min behind, stepped back 1 hour between reads', -300_000, -3_600_000, 'between-reads'],
  ['5 min ahead, stepped forward 1 hour between reads', 300_000, 3_600_000, 'between-reads'],
])('a tracker process whose clock is %s: every change once, the next one still seen by polling', async (_, skew, step, at) => {
  const { lines, code, stderr } = await skewedTracker(skew, step, at);
  expect(code, stderr).toBe(0);
  // the preload did skew the child's Date (and only Date)
  const measured = Number(lines.find((line) => line.startsWith('SKEW '))?.slice(5));
  expect(Math.abs(measured - skew)).toBeLessThan(1_000);
  expect(lines.filter((line) => line.startsWith('CHANGE ') || line.startsWith('LOG '))).toEqual([
    'CHANGE Pending false',
    'CHANGE Settled false',
  ]);
  expect(lines.at(-1)).toBe('DONE');
});
