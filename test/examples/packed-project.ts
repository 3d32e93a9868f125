/**
 * A fresh project in a temporary folder with the SDK installed from its packed tarball (built from
 * this checkout) and real tools from the npm registry, as a partner's project has them. For the
 * integration tests that run a framework's own build (next build) on the shipped examples.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The environment a child gets: PATH (with the Node running the tests first), HOME, and the npm,
 * proxy and CA-certificate settings needed to reach the registry, nothing else (no CHECKOUT_* or WEBHOOK_* secrets,
 * no NODE_ENV=test from vitest). `extra` adds to it.
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? tmpdir(),
  };
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && /^(https?_proxy|no_proxy|npm_config_\w+|node_extra_ca_certs|ssl_cert_file|ssl_cert_dir|tmpdir)$/i.test(name))
      env[name] = value;
  }
  return { ...env, ...extra };
}

/** Runs a command to its end; rejects with its output when it fails or outlasts `timeoutMs`. */
export function run(
  cmd: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs: number },
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { cwd: options.cwd, env: options.env ?? childEnv(), timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${cmd} ${args.join(' ')} failed (${error.message.split('\n')[0]}):\n${stdout}\n${stderr}`));
        else resolve(`${stdout}${stderr}`);
      },
    );
  });
}

/**
 * Whether these tests run: yes when the registry answers `npm ping`, and always with CI=true (an
 * unreachable registry then fails the test instead of skipping it). Says why once when skipping.
 */
export async function registryUsable(what: string): Promise<boolean> {
  if (process.env.CI === 'true') return true;
  try {
    await run('npm', ['ping'], { cwd: tmpdir(), timeoutMs: 20_000 });
    return true;
  } catch (error) {
    console.warn(
      `${what}: skipped, the npm registry is unreachable (${String(error).split('\n')[0]}); with CI=true it runs and fails instead`,
    );
    return false;
  }
}

/** `npm run build` then `npm pack` of this checkout into `dir`; resolves with the tarball's path. */
export async function packSdk(dir: string): Promise<string> {
  await run('npm', ['run', 'build'], { cwd: ROOT, timeoutMs: 300_000 });
  await run('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT, timeoutMs: 120_000 });
  const tarball = (await readdir(dir)).find((name) => name.startsWith('checkout-partner-sdk-') && name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`npm pack wrote no tarball into ${dir}`);
  return join(dir, tarball);
}

export interface PackedProject {
  readonly dir: string;
  /** Removes the folder. */
  remove(): Promise<void>;
}

/**
 * A temporary project with `dependencies` (name → version range) and the packed SDK installed by
 * `npm install`, as a partner installs them.
 */
export async function packedProject(name: string, dependencies: Record<string, string>): Promise<PackedProject> {
  const dir = await mkdtemp(join(tmpdir(), `checkout-partner-sdk-${name}-`));
  try {
    const tarball = await packSdk(dir);
    const manifest = { name, private: true, type: 'module', dependencies: { ...dependencies, 'checkout-partner-sdk': `file:${tarball}` } };
    await writeFile(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, timeoutMs: 600_000 });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A long-running child (a server): its output so far, and a stop that waits for its exit. */
export interface RunningChild {
  readonly process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export function start(cmd: string, args: string[], options: { cwd: string; env: Record<string, string> }): RunningChild {
  const child = spawn(cmd, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      }
    },
  };
}
