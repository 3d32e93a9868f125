// CPU profile of the SDK's status read: runs parts/profile-target.mjs under `node --cpu-prof` and
// prints the frames with the most self time and the self time per package; with --compare it also
// profiles raw fetch + res.json() (or, with --vs=ky, ky alone with the SDK's options) and prints
// where the SDK spends more.
//   node bench/profile.mjs [--requests=20000] [--compare] [--vs=raw|ky] [--stub] [--concurrency=1] [--top=25]
// The profiles stay in bench/.tmp/profile/ (open them in Chrome DevTools or speedscope).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flag } from './lib/measure.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dir = join(here, '.tmp', 'profile');
const requests = Number(flag('requests', 20_000));
const top = Number(flag('top', 25));
rmSync(dir, { recursive: true, force: true });

// --stub: every variant's fetch answers in-process (no I/O)
// --concurrency=64: that many reads in flight (64 loops sharing the requests), as the reads part's second figure
const stub = [...(flag('stub', false) ? ['--stub'] : []), `--concurrency=${Number(flag('concurrency', 1))}`];
const sdk = profileRun('sdk', stub);
if (flag('compare', false)) {
  const vs = flag('vs', 'raw');
  const title = vs === 'ky' ? 'ky alone' : 'raw fetch';
  const other = profileRun(vs, [vs === 'ky' ? '--ky' : '--raw', ...stub]);
  summarise('SDK getOrderByExternalId', sdk);
  summarise(vs === 'ky' ? 'ky alone + JSON.parse' : 'raw fetch + res.json()', other);
  difference(sdk, other, title);
} else {
  summarise('SDK getOrderByExternalId', sdk);
}

/** Runs the target under --cpu-prof and digests its profile (the client's: the server runs without profiling). */
function profileRun(name, extra) {
  const out = join(dir, name);
  mkdirSync(out, { recursive: true });
  const args = ['--cpu-prof', `--cpu-prof-dir=${out}`, '--cpu-prof-interval=100'];
  args.push(join(here, 'parts', 'profile-target.mjs'), `--requests=${requests}`, ...extra);
  const run = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: here });
  if (run.status !== 0) process.exit(run.status ?? 1);
  const file = readdirSync(out).find((f) => f.endsWith('.cpuprofile'));
  return digest(JSON.parse(readFileSync(join(out, file), 'utf8')));
}

/** Self time (µs) per frame and per package, idle excluded. */
function digest(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const frames = new Map();
  const packages = new Map();
  let busyUs = 0;
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id);
    if (callFrame.functionName === '(idle)') continue;
    busyUs += us;
    const where = callFrame.url ? ` ${shorten(callFrame.url)}:${callFrame.lineNumber + 1}` : '';
    const key = `${callFrame.functionName || '(anonymous)'}${where}`;
    frames.set(key, (frames.get(key) ?? 0) + us);
    const pkg = packageOf(callFrame.url, callFrame.functionName);
    packages.set(pkg, (packages.get(pkg) ?? 0) + us);
  }
  return { frames, packages, busyUs };
}

function summarise(title, { frames, packages, busyUs }) {
  const per = (us) => `${(us / requests).toFixed(1).padStart(7)} µs/req ${((us / busyUs) * 100).toFixed(1).padStart(5)}%`;
  console.log(`\n${title}: ${(busyUs / requests).toFixed(1)} µs busy per request (under the profiler)`);
  console.log(`Top ${top} frames by self time:`);
  for (const [key, us] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${per(us)}  ${key}`);
  console.log('Self time by package:');
  for (const [key, us] of [...packages].sort((a, b) => b[1] - a[1])) console.log(`  ${per(us)}  ${key}`);
}

function difference(a, b, title) {
  const per = (us) => `${(us / requests).toFixed(1).padStart(7)} µs/req`;
  const diff = (x, y) => {
    const keys = new Set([...x.keys(), ...y.keys()]);
    return [...keys].map((k) => [k, (x.get(k) ?? 0) - (y.get(k) ?? 0)]).sort((p, q) => q[1] - p[1]);
  };
  console.log(`\nSDK minus ${title}: ${((a.busyUs - b.busyUs) / requests).toFixed(1)} µs per request. By package:`);
  for (const [key, us] of diff(a.packages, b.packages)) if (Math.abs(us / requests) >= 0.5) console.log(`  ${per(us)}  ${key}`);
  console.log(`Top ${top} frames, SDK minus ${title}:`);
  for (const [key, us] of diff(a.frames, b.frames).slice(0, top)) console.log(`  ${per(us)}  ${key}`);
}

function shorten(url) {
  return url.replace(/^file:\/\/.*?node_modules\//, '').replace(/^file:\/\/.*?\/main\//, '');
}

function packageOf(url, fn) {
  if (!url) return fn === '(garbage collector)' ? 'GC' : fn.startsWith('(') ? fn : 'native (syscalls, V8 builtins)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.includes('/dist/')) return 'checkout-partner-sdk (dist)';
  if (url.startsWith('node:internal/deps/undici')) return 'undici (node fetch)';
  if (url.startsWith('node:')) return 'node internals';
  return shorten(url);
}
