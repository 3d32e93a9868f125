/**
 * The package as npm ships it, in fresh projects: `packedTarball()` builds and packs the working
 * tree once per content (cached under .tmp/toolchains, keyed by a hash of what the build reads), and
 * `toolProject()` installs real tools (Jest, esbuild, webpack, TypeScript) into a temp project of
 * their own, cached by their package list, then the tarball into it. Nothing here is mocked.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
const CACHE = join(ROOT, '.tmp', 'toolchains');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** A hash of what `npm run build` and `npm pack` read. */
function buildInputsHash(): string {
  const hash = createHash('sha256');
  const inputs = [
    ...filesUnder(join(ROOT, 'src')),
    join(ROOT, 'package.json'),
    join(ROOT, 'tsup.config.ts'),
    join(ROOT, 'tsconfig.json'),
  ].sort();
  for (const file of inputs) hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** Waits (bounded) for a lock directory, so parallel test files build once. */
function withLock<T>(name: string, body: () => T): T {
  mkdirSync(CACHE, { recursive: true });
  const lock = join(CACHE, `${name}.lock`);
  const deadline = Date.now() + 600_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // a lock older than the deadline is a crashed run's
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 600_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
  try {
    return body();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): string {
  return execFileSync(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: options.timeoutMs ?? 300_000,
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Runs and returns the whole result (a failing run is a result, not an exception). */
export function spawn(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): SpawnSyncReturns<string> {
  return spawnSync(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 300_000,
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** The packed tarball of the working tree (`npm run build`, then `npm pack`). */
export function packedTarball(): string {
  const dir = join(CACHE, `pack-${buildInputsHash()}`);
  return withLock('pack', () => {
    const found = existsSync(dir) ? readdirSync(dir).find((name) => name.endsWith('.tgz')) : undefined;
    if (found !== undefined) return join(dir, found);
    run('npm', ['run', 'build'], { cwd: ROOT, timeoutMs: 600_000 });
    mkdirSync(dir, { recursive: true });
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT })) as [{ filename: string }];
    return join(dir, packed.filename);
  });
}

/**
 * A fresh project in `work` holding `packages` (installed once per list into the cache, then
 * copied) and the packed SDK. `packageJson` is the project's package.json (`type` etc.).
 */
export function toolProject(work: string, toolPackages: string[], packageJson: Record<string, unknown> = {}): string {
  // the SDK's own dependencies and its required peers (zod) at their ranges, beside the tools, as
  // `npm install <tarball>` would add them
  const { dependencies, peerDependencies, peerDependenciesMeta } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
  };
  const required = Object.entries(peerDependencies).filter(([name]) => peerDependenciesMeta[name]?.optional !== true);
  const packages = [...toolPackages, ...[...Object.entries(dependencies), ...required].map(([name, range]) => `${name}@${range}`)];
  const key = createHash('sha256').update(JSON.stringify(packages)).digest('hex').slice(0, 16);
  const tools = join(CACHE, `tools-${key}`);
  withLock(`tools-${key}`, () => {
    if (existsSync(join(tools, 'node_modules', '.installed'))) return;
    rmSync(tools, { recursive: true, force: true });
    mkdirSync(tools, { recursive: true });
    writeFileSync(join(tools, 'package.json'), JSON.stringify({ name: 'toolchain-tools', private: true }));
    run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', ...packages], {
      cwd: tools,
      timeoutMs: 600_000,
    });
    writeFileSync(join(tools, 'node_modules', '.installed'), packages.join('\n'));
  });
  mkdirSync(work, { recursive: true });
  cpSync(join(tools, 'node_modules'), join(work, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'toolchain-app', private: true, ...packageJson }, null, 2));
  // the SDK from its tarball, unpacked where `npm install <tarball>` puts it (an npm install here
  // would prune the copied tools, which no package.json lists)
  const sdk = join(work, 'node_modules', 'checkout-partner-sdk');
  mkdirSync(sdk, { recursive: true });
  run('tar', ['xzf', packedTarball(), '-C', sdk, '--strip-components=1'], { cwd: work });
  return work;
}
