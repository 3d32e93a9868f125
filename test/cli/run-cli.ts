import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { afterEach } from 'vitest';

/** The repository root: the CLI runs from there. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Only what node needs: no CHECKOUT_* variable leaks in from the machine running the tests. */
const baseEnv = (): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
};

let bundle: string | undefined;

/**
 * src/cli/index.ts bundled by esbuild (dependencies left to node_modules, tsconfig's paths as tsx
 * reads them), once per test file, named by its content. A run then starts in a third of the CPU
 * time tsx takes to load the sources, so a test of several runs stays within its timeout while
 * another test suite runs beside it.
 */
function cliBundle(): string {
  if (bundle !== undefined) return bundle;
  const built = buildSync({
    entryPoints: [join(ROOT, 'src/cli/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    tsconfig: join(ROOT, 'tsconfig.json'),
    write: false,
    logLevel: 'warning',
  });
  const code = built.outputFiles[0]!.contents;
  const dir = join(ROOT, 'node_modules/.cache/cli-tests');
  const file = join(dir, `cli-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    // written whole under another name first: test files running at once may build it together
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, file);
  }
  bundle = file;
  return file;
}

const running = new Set<ChildProcess>();
// a test that timed out leaves no CLI of its own running into the next test (to deliver to its receiver)
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

/** Starts the CLI with the Node running the tests (Node 24), from the repository root; killed after its test. */
export function startCli(args: readonly string[], env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [cliBundle(), ...args], {
    cwd: ROOT,
    env: { ...baseEnv(), ...env },
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  return child;
}

/** Runs the CLI to completion (killed after `timeoutMs`), with `input` on stdin. */
export function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const child = startCli(args, options.env);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
