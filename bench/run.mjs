#!/usr/bin/env node
// `npm run bench`: builds the package, runs each part of the bench in its own process, prints the
// results against their goals and writes bench/results.json. See bench/README.md.
//
//   node bench/run.mjs [--only=reads,overhead,telemetry,tokens,webhooks,postgres,memory,size,outage,tracker,schedule,pgboss] [--quick] [--no-build]
//                      [--token-seconds=30] [--memory-seconds=25] [--rounds=7]
//
// Bounded: every part has a time limit; the default run takes about 2.5 minutes on 2 cores.
// Goals that are not met are printed as such (exit 0); a part that fails exits 1.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readlinkSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flag, machine } from './lib/measure.mjs';
import { goals, printResults } from './lib/table.mjs';

const bench = dirname(fileURLToPath(import.meta.url));
const root = join(bench, '..');
const quick = flag('quick', false);
const only = (
  flag('only', undefined) ?? 'reads,overhead,telemetry,tokens,webhooks,postgres,memory,size,outage,tracker,schedule,pgboss'
).split(',');
const tokenSeconds = Number(flag('token-seconds', quick ? 8 : 30));
const memorySeconds = Number(flag('memory-seconds', quick ? 15 : 25));
const started = Date.now();

const npm = (args, cwd) => {
  // under `npm run`, npm_execpath is the npm that runs us; else the one on PATH
  const viaNode = process.env.npm_execpath?.endsWith('.js');
  const command = viaNode ? process.execPath : process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const run = spawnSync(command, viaNode ? [process.env.npm_execpath, ...args] : args, {
    cwd,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (run.status !== 0) {
    console.error(`bench: \`npm ${args.join(' ')}\` failed (exit ${run.status})`);
    process.exit(1);
  }
};

// 1. the bench's own dependencies (the peers), installed from bench/package-lock.json
const peers = ['openai', 'stripe', 'standardwebhooks', 'pg-boss'];
if (!flag('no-install', false) && peers.some((p) => !existsSync(join(bench, 'node_modules', p, 'package.json')))) {
  console.log('bench: installing the bench dependencies (npm ci --prefix bench)');
  npm(['ci', '--prefix', bench, '--no-audit', '--no-fund'], root);
}

// 2. the SDK as partners get it: the built package, resolved by name through a link to the repo
const link = join(bench, 'node_modules', 'checkout-partner-sdk');
mkdirSync(dirname(link), { recursive: true });
let linked = false;
try {
  linked = lstatSync(link).isSymbolicLink() && readlinkSync(link) === join('..', '..');
  if (!linked) unlinkSync(link);
} catch {
  // no link yet
}
if (!linked) symlinkSync(join('..', '..'), link, 'dir');

// 3. build
if (!flag('no-build', false)) {
  console.log('bench: npm run build');
  npm(['run', 'build', '--silent'], root);
}
if (!existsSync(join(root, 'dist', 'index.js'))) {
  console.error('bench: dist/index.js is missing; run `npm run build`');
  process.exit(1);
}

// 4. the parts, one process each, one after the other
const parts = {
  reads: { file: 'reads.mjs', args: [quick && '--quick', flag('rounds', false) && `--rounds=${flag('rounds')}`], limitS: 360 },
  overhead: { file: 'overhead.mjs', args: [`--rounds=${quick ? 9 : 15}`], limitS: 60 },
  telemetry: { file: 'telemetry.mjs', args: [`--rounds=${quick ? 9 : 21}`], limitS: 90 },
  tokens: { file: 'tokens.mjs', args: [`--token-seconds=${tokenSeconds}`], limitS: tokenSeconds + 60 },
  webhooks: { file: 'webhooks.mjs', args: [quick && '--quick'], limitS: 90 },
  postgres: { file: 'postgres.mjs', args: [quick && '--quick'], limitS: 120 },
  memory: { file: 'memory.mjs', node: ['--expose-gc'], args: [`--memory-seconds=${memorySeconds}`], limitS: memorySeconds + 60 },
  size: { file: 'size.mjs', args: [quick && '--startup-runs=7'], limitS: 90 },
  outage: { file: 'outage.mjs', node: ['--expose-gc'], args: [quick && '--quick'], limitS: 150 },
  tracker: { file: 'tracker.mjs', node: ['--expose-gc'], args: [quick && '--quick'], limitS: 120 },
  // a simulation on a virtual clock: 48 minutes of checkouts, three scenarios
  schedule: { file: 'tracker-schedule.mjs', args: [], limitS: 240 },
  // the tracker's worker + database CPU per read on PostgreSQL against pg-boss's per job (~90 s)
  pgboss: { file: 'tracker-vs-pgboss.mjs', args: [quick && '--quick'], limitS: 200 },
};
const results = {};
for (const name of only) {
  const part = parts[name];
  if (part === undefined) {
    console.error(`bench: unknown part "${name}" (parts: ${Object.keys(parts).join(', ')})`);
    process.exit(2);
  }
  const t0 = Date.now();
  process.stdout.write(`bench: ${name} ... `);
  try {
    results[name] = await runPart(part);
    console.log(`${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } catch (error) {
    console.log('failed');
    console.error(`bench: ${name}: ${error.message}`);
    results[name] = { error: error.message };
  }
}

const output = {
  machine: machine(),
  options: { quick: Boolean(quick), tokenSeconds, memorySeconds, parts: only },
  durationSeconds: (Date.now() - started) / 1000,
  results,
  goals: goals(results),
};
printResults(output);
// the record is a full run; --only and --quick runs go to bench/.tmp/ so they never replace it
const full = !quick && flag('only', undefined) === undefined;
const file = full ? 'results.json' : join('.tmp', 'results.json');
mkdirSync(join(bench, '.tmp'), { recursive: true });
writeFileSync(join(bench, file), `${JSON.stringify(output, null, 2)}\n`);
console.log(`\nbench: wrote bench/${file} (${output.durationSeconds.toFixed(0)} s in all)`);
// goals not met are reported, not failed; a part that could not run is a failure
if (Object.values(results).some((r) => r.error)) process.exitCode = 1;

function runPart({ file, node = [], args, limitS }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...node, join(bench, 'parts', file), ...args.filter(Boolean)], {
      cwd: bench,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGTERM'); // parts clean up (servers, redis-server) on SIGTERM
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      reject(new Error(`took longer than its ${limitS} s limit`));
    }, limitS * 1000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || line === undefined) reject(new Error(`exited ${code} without a result`));
      else resolve(JSON.parse(line.slice('RESULT '.length)));
    });
  });
}
