/**
 * Child processes for the reliability scripts (chaos, soak, runtimes): every child has a hard time
 * limit, every child is killed by its pid when the parent exits (also on failure or Ctrl-C), and
 * TypeScript children run through tsx with `tsconfig.dist.json`, so `checkout-partner-sdk` resolves
 * to the BUILT package (dist/) through package.json `exports`, as a partner's install would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** tsconfig for tsx without `paths`, so the package name resolves to dist/. */
export const DIST_TSCONFIG = join(ROOT, 'scripts', 'chaos', 'tsconfig.dist.json');

const live = new Set<ChildProcess>();

/** Kills every child still running (SIGKILL, by pid). Safe to call more than once. */
export function killAll(): void {
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  live.clear();
}

let hooked = false;
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(130);
    });
  }
}

export interface BoundedChild {
  readonly child: ChildProcess;
  /** Resolves when the child has exited (or was killed at its time limit). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; timedOut: boolean }>;
  /** Everything the child wrote to stdout and stderr so far (capped at 1 MiB each). */
  readonly output: { stdout: string; stderr: string };
}

export interface SpawnOptions {
  /** Shown in failures. */
  name: string;
  /** Hard limit: SIGKILL after this many milliseconds. */
  timeoutMs: number;
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Open an IPC channel (`process.send` in the child). */
  ipc?: boolean;
  /** Echo the child's output with a `[name]` prefix. */
  echo?: boolean;
  /** Called with each complete stdout line. */
  onLine?: (line: string) => void;
}

/** Spawns `command args` with a hard time limit; the child is killed when this process exits. */
export function spawnBounded(command: string, args: readonly string[], options: SpawnOptions): BoundedChild {
  hookExit();
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const output = { stdout: '', stderr: '' };
  let partial = '';
  const cap = (s: string) => (s.length > 1 << 20 ? s.slice(-(1 << 20)) : s);
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout = cap(output.stdout + chunk);
    if (options.echo) process.stdout.write(prefix(options.name, chunk));
    if (options.onLine) {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) options.onLine(line);
    }
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr = cap(output.stderr + chunk);
    if (options.echo) process.stderr.write(prefix(options.name, chunk));
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; timedOut: boolean }>((resolve) => {
    child.once('error', (error) => {
      output.stderr += `\n[spawn error] ${error.message}`;
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, signal, timedOut });
    });
  });
  return { child, exited, output };
}

function prefix(name: string, chunk: string): string {
  return chunk
    .split('\n')
    .map((line, i, all) => (i === all.length - 1 && line === '' ? '' : `[${name}] ${line}`))
    .join('\n');
}

/** The tsx loader's path, so children run `node --import <tsx> file.ts`. */
export function tsxImport(): string {
  const require = createRequire(import.meta.url);
  return require.resolve('tsx');
}

/** `SDK_FROM_SRC=1` runs the scripts against src/ (through the root tsconfig's `paths`) instead of dist/, for debugging. */
export const FROM_SRC = process.env.SDK_FROM_SRC === '1';

/**
 * Spawns a TypeScript file with the current Node and tsx, resolving the package name to dist/
 * (or to src/ with `SDK_FROM_SRC=1`).
 */
export function spawnTs(file: string, args: readonly string[], options: SpawnOptions): BoundedChild {
  return spawnBounded(process.execPath, ['--import', tsxImport(), file, ...args], {
    ...options,
    env: { TSX_TSCONFIG_PATH: FROM_SRC ? join(ROOT, 'tsconfig.json') : DIST_TSCONFIG, ...options.env },
  });
}

/**
 * Fails unless dist/ holds a build newer than every file under src/: the scripts test the BUILT
 * package, so a stale build would test old code.
 */
export function assertFreshBuild(entries: readonly string[] = ['index.js']): void {
  const dist = join(ROOT, 'dist');
  for (const entry of entries) {
    if (!existsSync(join(dist, entry))) {
      throw new Error(`dist/${entry} is missing: run \`npm run build\` first`);
    }
  }
  const built = Math.min(...entries.map((e) => statSync(join(dist, e)).mtimeMs));
  const newest = newestMtime(join(ROOT, 'src'));
  if (newest.mtimeMs > built) {
    throw new Error(`dist/ is older than ${newest.path}: run \`npm run build\` first`);
  }
}

function newestMtime(dir: string): { path: string; mtimeMs: number } {
  let best = { path: dir, mtimeMs: 0 };
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const candidate = entry.isDirectory() ? newestMtime(path) : { path, mtimeMs: statSync(path).mtimeMs };
    if (candidate.mtimeMs > best.mtimeMs) best = candidate;
  }
  return best;
}

/** The value at quantile `q` (0..1) of `sorted`, which must be sorted ascending. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/**
 * A watchdog for this process: if it is still alive `ms` after `arm()` (because a timer, socket or
 * child still holds the event loop open), it prints what is alive and exits with code 1. It is
 * unref'd, so it never keeps the process alive by itself.
 */
export function exitWatchdog(ms: number, what: string): void {
  const timer = setTimeout(() => {
    process.stderr.write(
      `FAIL: ${what} did not exit by itself within ${ms} ms; still alive: ${JSON.stringify(process.getActiveResourcesInfo())}\n`,
    );
    killAll();
    process.exit(1);
  }, ms);
  timer.unref();
}
