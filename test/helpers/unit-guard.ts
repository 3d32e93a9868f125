// Setup file of the `unit` project (vitest.config.ts): a unit test starts no server and no
// subprocess, and waits on no real time. Each makes the test depend on the machine, so this refuses
// them and says what to do instead.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import timers from 'node:timers';
import timersPromises from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeEach, expect, vi } from 'vitest';

const refuse = (what: string) =>
  function refused(): never {
    throw new Error(`a unit test starts no ${what}: name this test file *.integration.test.ts (vitest.config.ts)`);
  };

net.Server.prototype.listen = refuse('server');
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = refuse('subprocess');
}

const WHAT_TO_DO =
  'A unit test runs on fake timers: call vi.useFakeTimers() before the code under test starts its timer and move the clock ' +
  'with vi.advanceTimersByTimeAsync(ms); await work that settles on real I/O itself (test/helpers/fake-time.ts). ' +
  'If real time is the point, name the file *.integration.test.ts, with margins that hold on a loaded machine.';

const TEST_DIR = fileURLToPath(new URL('..', import.meta.url));
const SRC_DIR = fileURLToPath(new URL('../../src/', import.meta.url));
const GUARD = fileURLToPath(import.meta.url);

/** The file of the code that called `below`, from V8's frames (no formatting: cheap enough for every call). */
function callerFile(below: (...args: never[]) => unknown): string | undefined {
  const { prepareStackTrace, stackTraceLimit } = Error;
  Error.prepareStackTrace = (_, sites) => sites;
  Error.stackTraceLimit = 1;
  const holder: { stack?: NodeJS.CallSite[] } = {};
  Error.captureStackTrace(holder, below);
  const file = holder.stack?.[0]?.getFileName() ?? undefined; // formatted on this first read: before the restore
  Error.prepareStackTrace = prepareStackTrace;
  Error.stackTraceLimit = stackTraceLimit;
  return file?.startsWith('file:') ? fileURLToPath(file) : file;
}

/** A trace taken now and formatted (source-mapped) only if it is reported. */
function trace(): Error {
  const { stackTraceLimit } = Error;
  Error.stackTraceLimit = 40;
  const error = new Error();
  Error.stackTraceLimit = stackTraceLimit;
  return error;
}

/** Where a trace entered the test files and the SDK: the lines that started a timer. */
function site(error: Error): string {
  const frames = (error.stack ?? '').split('\n').slice(1);
  const first = (dir: string) =>
    frames
      .find((line) => line.includes(dir) && !line.includes('node_modules') && !line.includes(GUARD))
      ?.trim()
      .replace(/^at /, '')
      .replace(TEST_DIR, 'test/')
      .replace(SRC_DIR, 'src/');
  return [first(TEST_DIR), first(SRC_DIR)].filter(Boolean).join(', in ') || frames.slice(1, 4).join(' ').trim();
}

// Real timers. One of at most 1 ms that fires is a turn of the event loop, as libraries yield
// (setTimeout(fn, 0)); a longer one that fires is a real wait. One cleared before it fires (ky's
// timeout of a call that answered) waited for nothing, and one Node starts for itself (undici's
// timer wheel under fetch) is housekeeping: neither is refused.
const TURN_MS = 1;

interface Wait {
  what: string;
  ms: number;
  started: Error;
}
interface Running {
  name: string;
  waits: Wait[];
}
let running: Running | undefined;
const strays: (Wait & { owner: string })[] = [];

const delayOf = (ms: unknown): number => {
  const n = Number(ms);
  return n >= 1 && n <= 2 ** 31 - 1 ? n : 1; // as Node reads a delay
};

/** A real timer of `wait.ms` fired: the wait is the test's that started it. */
function waited(owner: Running | undefined, wait: Wait): void {
  if (owner !== undefined && owner === running) owner.waits.push(wait);
  else strays.push({ ...wait, owner: owner?.name ?? 'a hook or the module itself' });
}

type Timer = (callback: (...args: unknown[]) => unknown, ms?: number, ...args: unknown[]) => unknown;
function watched(real: Timer, what: string): Timer {
  return function timer(this: unknown, callback, ms, ...args) {
    if (typeof callback !== 'function' || delayOf(ms) <= TURN_MS || callerFile(timer)?.startsWith('node:')) {
      return real.call(this, callback, ms, ...args);
    }
    const owner = running;
    const started = trace();
    let reported = false;
    function fired(this: unknown, ...callbackArgs: unknown[]) {
      if (!reported) waited(owner, { what, ms: delayOf(ms), started });
      reported = true;
      return callback.apply(this, callbackArgs);
    }
    return real.call(this, fired, ms, ...args);
  };
}

function watchedPromise<A extends unknown[], R>(
  real: (ms?: number, ...args: A) => Promise<R>,
  what: string,
): (ms?: number, ...args: A) => Promise<R> {
  return (ms?: number, ...args: A) => {
    const pending = real(ms, ...args);
    if (delayOf(ms) <= TURN_MS) return pending;
    const owner = running;
    const started = trace();
    return pending.then((value) => {
      waited(owner, { what, ms: delayOf(ms), started });
      return value;
    });
  };
}

const realAbortTimeout = AbortSignal.timeout.bind(AbortSignal);
AbortSignal.timeout = (ms: number) => {
  const signal = realAbortTimeout(ms);
  if (delayOf(ms) > TURN_MS) {
    const owner = running;
    const started = trace();
    signal.addEventListener('abort', () => waited(owner, { what: 'AbortSignal.timeout', ms, started }), { once: true });
  }
  return signal;
};
const sleep = watchedPromise(timersPromises.setTimeout, "setTimeout of 'node:timers/promises'");
timersPromises.setTimeout = sleep;
const schedulerWait = timersPromises.scheduler.wait.bind(timersPromises.scheduler);
timersPromises.scheduler.wait = watchedPromise(
  (ms?: number, options?: { signal?: AbortSignal }) => schedulerWait(ms ?? 1, options),
  'scheduler.wait',
);
for (const name of ['setTimeout', 'setInterval'] as const) {
  const guarded = watched(globalThis[name], name);
  // util.promisify(setTimeout) is the promise flavour, as with Node's own
  if (name === 'setTimeout') Object.assign(guarded, { [promisify.custom]: sleep });
  Object.assign(globalThis, { [name]: guarded });
  Object.assign(timers, { [name]: guarded });
}

// The clock, read by the test itself (not by the SDK or a library): a time measured on a loaded
// machine, or a value that differs from run to run. Under vi.useFakeTimers({ toFake: ['Date',
// 'performance'] }) the test reads the fake clock, which never reaches these.
function refuseClockRead(name: string): never {
  throw new Error(`a unit test reads the real clock (${name}), which depends on the machine's load; read a fake one. ${WHAT_TO_DO}`);
}
const inTests = (file: string | undefined) => file?.startsWith(TEST_DIR) === true && !file.includes('node_modules');
const realDateNow = Date.now.bind(Date);
Date.now = function now() {
  if (inTests(callerFile(now))) refuseClockRead('Date.now()');
  return realDateNow();
};
const realPerformanceNow = performance.now.bind(performance);
performance.now = function now() {
  if (inTests(callerFile(now))) refuseClockRead('performance.now()');
  return realPerformanceNow();
};

// vi.waitFor and vi.waitUntil poll against a budget of real time (1 s by default)
for (const name of ['waitFor', 'waitUntil'] as const) {
  vi[name] = () => {
    throw new Error(
      `a unit test waits for no budget of real time (vi.${name}): await reached(condition, what) from test/helpers/fake-time.ts, ` +
        'which lets real work run until the condition holds, however long a loaded machine takes',
    );
  };
}

// `import { spawn } from 'node:child_process'` and the timers' named imports read the ESM bindings: bring them in line
syncBuiltinESMExports();

function refusal(who: string, waits: Wait[]): Error {
  const list = waits.map((w) => `a real ${w.what} of ${Math.round(w.ms)} ms (started at ${site(w.started)})`).join('; ');
  return new Error(`${who} waited on real time: ${list}. ${WHAT_TO_DO}`);
}

beforeEach(() => {
  running = { name: expect.getState().currentTestName ?? 'a test', waits: [] };
});
afterEach(() => {
  const done = running;
  running = undefined;
  if (done !== undefined && done.waits.length > 0) throw refusal(`"${done.name}"`, done.waits);
});
afterAll(() => {
  if (strays.length === 0) return;
  const owners = [...new Set(strays.map((s) => `"${s.owner}"`))].join(', ');
  throw refusal(`${owners} (a timer that fired after its test, or was started outside one)`, strays.splice(0));
});
