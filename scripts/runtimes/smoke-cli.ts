/**
 * The smoke suite's entry for Node, Bun and Deno: `<runtime> smoke-cli.mjs <baseUrl> <partnerId> <partnerSecret>`.
 * Prints one line `SMOKE {json}` and exits 0 when every check passed, 1 otherwise. On Node it
 * also loads the CommonJS build with require() and checks it against the ESM one.
 */
import { smoke, type SmokeResult } from './smoke.js';

interface Runtime {
  Deno?: { args: string[]; exit(code: number): never; version: { deno: string } };
  Bun?: { version: string };
  process?: { argv: string[]; exitCode?: number; versions: Record<string, string> };
}
const runtime = globalThis as Runtime;
const args = runtime.Deno ? runtime.Deno.args : (runtime.process?.argv.slice(2) ?? []);
const [baseUrl = '', partnerId = '', partnerSecret = ''] = args;
const name = runtime.Deno
  ? `deno ${runtime.Deno.version.deno}`
  : runtime.Bun
    ? `bun ${runtime.Bun.version}`
    : `node ${runtime.process?.versions.node ?? '?'}`;

/** Which build of ./webhooks this runtime picked through the `exports` conditions. */
let webhooksBuild = '?';
try {
  webhooksBuild = import.meta.resolve('checkout-partner-sdk/webhooks').split('/').at(-1) ?? '?';
} catch {
  // a runtime without import.meta.resolve
}
const result: SmokeResult & { runtime: string } = {
  runtime: `${name} (${webhooksBuild})`,
  ...(await smoke({ baseUrl, partnerId, partnerSecret })),
};

if (result.ok && !runtime.Deno && !runtime.Bun) {
  // Node: the CommonJS build, through require(), resolves and agrees with the ESM build
  try {
    const { createRequire } = await import('node:module');
    const require = createRequire(import.meta.url);
    const cjs = require('checkout-partner-sdk') as typeof import('checkout-partner-sdk');
    const cjsHooks = require('checkout-partner-sdk/webhooks') as typeof import('checkout-partner-sdk/webhooks');
    const esmHooks = await import('checkout-partner-sdk/webhooks');
    const client = new cjs.CheckoutClient({ baseUrl, partnerId, partnerSecret, maxRetries: 0 });
    const me = await client.getMe();
    const same = (await cjsHooks.signPayload('x', 'k')) === (await esmHooks.signPayload('x', 'k'));
    if (typeof me !== 'object' || !same) throw new Error('the CommonJS build disagrees with the ESM build');
    result.checks.push('CommonJS build (require)');
  } catch (error) {
    result.ok = false;
    result.failure = `CommonJS: ${error instanceof Error ? error.message : String(error)}`;
  }
}

console.log(`SMOKE ${JSON.stringify(result)}`);
if (runtime.Deno) runtime.Deno.exit(result.ok ? 0 : 1);
else if (runtime.process) runtime.process.exitCode = result.ok ? 0 : 1;
