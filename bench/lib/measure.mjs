// Measurement helpers shared by the bench parts: interleaved rounds, medians, CPU per operation.
import { cpus } from 'node:os';

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** CPU microseconds (user + system) this process has used so far. */
export const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/**
 * Runs `batch(variant)` for every variant, `rounds` times, interleaved: the order rotates each
 * round (A B C, B C A, C A B, ...) so no variant always runs first or last. Returns, per variant,
 * the per-round samples of wall time and CPU time (µs) and the median of each.
 */
export async function interleave(variants, { rounds, batch, warmup = 1 }) {
  const names = Object.keys(variants);
  for (let w = 0; w < warmup; w++) for (const name of names) await batch(variants[name], name);
  const samples = Object.fromEntries(names.map((name) => [name, { wallUs: [], cpuUs: [], ops: [] }]));
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length];
      const cpu0 = cpuMicros();
      const t0 = process.hrtime.bigint();
      const ops = await batch(variants[name], name);
      const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
      samples[name].cpuUs.push(cpuMicros() - cpu0);
      samples[name].wallUs.push(wallUs);
      samples[name].ops.push(ops);
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const s = samples[name];
      const cpuPerOp = s.cpuUs.map((cpu, i) => cpu / s.ops[i]);
      const opsPerSec = s.wallUs.map((wall, i) => (s.ops[i] * 1e6) / wall);
      const wallPerOp = s.wallUs.map((wall, i) => wall / s.ops[i]);
      return [
        name,
        {
          cpuUsPerOp: median(cpuPerOp),
          opsPerSec: median(opsPerSec),
          wallUsPerOp: median(wallPerOp),
          rounds,
          cpuPerOp,
          opsPerSecSamples: opsPerSec,
        },
      ];
    }),
  );
}

/**
 * The median of per-round ratios `variant / baseline` of a sample field (`cpuPerOp` or
 * `opsPerSecSamples`): both ran in the same round, so noise that hits the whole round cancels out.
 */
export function pairedRatio(results, name, baseline, field) {
  const a = results[name][field];
  const b = results[baseline][field];
  return median(a.map((value, i) => value / b[i]));
}

export function machine() {
  const list = cpus();
  return {
    cpuModel: list[0]?.model ?? 'unknown',
    cores: list.length,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
  };
}

/** A part of the bench prints one line `RESULT <json>` on stdout; the runner collects it. */
export function report(result) {
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

export function flag(name, fallback) {
  const index = process.argv.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  if (index === -1) return fallback;
  const hit = process.argv[index];
  const eq = hit.indexOf('=');
  if (eq !== -1) return hit.slice(eq + 1);
  // `--only memory` as well as `--only=memory`, for flags that take a value
  const next = process.argv[index + 1];
  return typeof fallback !== 'boolean' && next !== undefined && !next.startsWith('--') ? next : true;
}
