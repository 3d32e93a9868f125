import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, toolProject } from './packed.js';

const execFileAsync = promisify(execFile);

// Vite 7 (Rollup) builds the packed SDK into an app: an SSR build that bundles its dependencies
// (`ssr.noExternal`, as a serverless deploy does) and a library build. Rollup reads every file of
// the SDK there and warns on what it cannot use (a comment carrying `@__PURE__` where it annotates
// nothing), naming the file: no line of either build may name the SDK. The SSR app makes a handler
// and a tracker at module scope: nothing printed at construction, the memory-store notice once at
// the first delivery.

const APP = `
import { control } from './control.mjs';
import { CheckoutClient } from 'checkout-partner-sdk';
import { createStatusTracker } from 'checkout-partner-sdk/tracker';
import { createWebhookHandler } from 'checkout-partner-sdk/webhooks';

const client = new CheckoutClient({ baseUrl: 'http://127.0.0.1:9', partnerId: 'p-1', partnerSecret: 's-1' });
const tracker = createStatusTracker({ client, onChange: () => {} });
const handler = createWebhookHandler({ secret: 'whsec_vite', client, tracker, onEvent: () => {} });
console.error('constructed', control);
const unsigned = () => new Request('http://127.0.0.1/webhooks', { method: 'POST', body: '{}' });
const statuses = [(await handler.handle(unsigned())).status, (await handler.handle(unsigned())).status];
console.log(JSON.stringify({ statuses }));
`;

// the control: a module of the app's own whose comment misplaces an annotation, which the SSR
// build must report (so a line naming the SDK would be seen, were there one)
const CONTROL = `export const control = /* @__PURE__ */ 1 + 1;
`;

const LIB = `
import { CheckoutClient, CheckoutError } from 'checkout-partner-sdk';
import { createWebhookHandler, signPayload } from 'checkout-partner-sdk/webhooks';
export { CheckoutClient, CheckoutError, createWebhookHandler, signPayload };
`;

const CONFIG = `
import { defineConfig } from 'vite';
export default defineConfig(({ mode }) =>
  mode === 'lib'
    ? { logLevel: 'info', build: { outDir: 'out-lib', lib: { entry: 'lib.mjs', formats: ['es'], fileName: 'lib' }, minify: false } }
    : { logLevel: 'info', ssr: { noExternal: true, target: 'node' }, build: { outDir: 'out-ssr', ssr: 'app.mjs', minify: false } },
);
`;

const work = mkdtempSync(join(tmpdir(), 'checkout-vite-'));
let dir = '';
beforeAll(() => {
  dir = toolProject(join(work, 'app'), ['vite@7'], { type: 'module' });
  writeFileSync(join(dir, 'app.mjs'), APP);
  writeFileSync(join(dir, 'lib.mjs'), LIB);
  writeFileSync(join(dir, 'control.mjs'), CONTROL);
  writeFileSync(join(dir, 'vite.config.mjs'), CONFIG);
}, 900_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs `vite build` in a mode; fails with its output unless it exits 0. Returns stdout and stderr. */
function viteBuild(mode: 'ssr' | 'lib'): string {
  const result = spawn(process.execPath, [join(dir, 'node_modules/vite/bin/vite.js'), 'build', '--mode', mode], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
    timeoutMs: 240_000,
  });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`vite build --mode ${mode} exited ${result.status}:\n${output.slice(-4000)}`);
  return output;
}

/**
 * The lines of a build's output that name the SDK (a warning about its files, or its own lines),
 * but Vite's list of the files it wrote (a chunk may be named after a module of the SDK).
 */
const sdkLines = (output: string) =>
  output.split('\n').filter((line) => line.includes('checkout-partner-sdk') && !/^\s*out-(ssr|lib)\/\S+\s+[\d.,]+ kB/.test(line));

describe('Vite 7', () => {
  it('SSR build (dependencies bundled): no line names the SDK; the app prints the notice once, at first delivery', async () => {
    const output = viteBuild('ssr');
    expect(output).toMatch(/out-ssr\/app\.js/);
    expect(output).toMatch(/control\.mjs.*annotation/);
    expect(sdkLines(output)).toEqual([]);
    const { stdout, stderr } = await execFileAsync(process.execPath, ['out-ssr/app.js'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      timeout: 60_000,
    });
    expect(JSON.parse(stdout.trim())).toEqual({ statuses: [401, 401] });
    const lines = stderr.trim().split('\n');
    expect(lines[0]).toBe('constructed 2'); // nothing of the SDK's before its first use
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^checkout-partner-sdk webhook notice memory-store: /)]);
  }, 300_000);

  it('library build: no line names the SDK', () => {
    const output = viteBuild('lib');
    expect(output).toMatch(/out-lib\/lib\.js/);
    expect(sdkLines(output)).toEqual([]);
  }, 300_000);
});
