import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, toolProject } from '../toolchains/packed.js';

// The packed SDK in a fresh project, once through `import` and once through `require`: the entries of
// a format share one copy of each SDK class, so an error from any entry is an instance of the main
// entry's CheckoutError by its prototype chain (isPrototypeOf, which no Symbol.hasInstance can
// answer), and the schemas the SDK exports are built by the project's own zod.
const ENTRIES = ['webhooks', 'redis', 'postgres', 'tracker', 'stores', 'testing'];

/** The probe, for either format: `load(specifier)` is `import` or `require`. */
const probe = (load: string) => `
  const main = ${load}('checkout-partner-sdk');
  const z = ${load}('zod/mini');
  const report = { thrown: {}, classes: {}, schemaIsProjectZod: main.OrderSchema.constructor === z.ZodMiniObject };
  try {
    (${load}('checkout-partner-sdk/webhooks')).parseEvent('{}');
  } catch (error) {
    report.thrown = {
      name: error.name,
      viaInstanceof: error instanceof main.CheckoutError,
      viaPrototypeChain: main.CheckoutError.prototype.isPrototypeOf(error),
    };
  }
  for (const entry of ${JSON.stringify(ENTRIES)}) {
    const module = ${load}('checkout-partner-sdk/' + entry);
    for (const [name, value] of Object.entries(module)) {
      if (typeof value === 'function' && Error.prototype.isPrototypeOf(value.prototype)) {
        report.classes[entry + '.' + name] = main.CheckoutError.prototype.isPrototypeOf(value.prototype);
      }
    }
  }
  console.log(JSON.stringify(report));
`;

let work: string;
beforeAll(() => {
  work = toolProject(mkdtempSync(join(tmpdir(), 'checkout-one-copy-')), [], { type: 'commonjs' });
  writeFileSync(join(work, 'probe.cjs'), probe('require'));
  writeFileSync(join(work, 'probe.mjs'), probe('await import'));
}, 900_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each([
  ['ESM', 'probe.mjs'],
  ['CommonJS', 'probe.cjs'],
])('one copy of the SDK per format: %s', (_format, file) => {
  let report: {
    thrown: { name?: string; viaInstanceof?: boolean; viaPrototypeChain?: boolean };
    classes: Record<string, boolean>;
    schemaIsProjectZod: boolean;
  };
  beforeAll(() => {
    const result = spawn(process.execPath, [file], { cwd: work, timeoutMs: 60_000 });
    expect(result.stderr).toBe('');
    report = JSON.parse(result.stdout) as typeof report;
  });

  it('an error thrown by the webhooks entry is the main entry CheckoutError, by its prototype chain', () => {
    expect(report.thrown).toEqual({ name: 'WebhookPayloadError', viaInstanceof: true, viaPrototypeChain: true });
  });

  it('every error class of every entry extends the main entry CheckoutError itself', () => {
    expect(Object.keys(report.classes)).toEqual(
      expect.arrayContaining([
        'webhooks.WebhookPayloadError',
        'redis.RedisStoreError',
        'stores.LeaseLostError',
        'testing.EventDeliveryError',
      ]),
    );
    expect(Object.entries(report.classes).filter(([, extendsMain]) => !extendsMain)).toEqual([]);
  });

  it("the exported schemas are built by the project's zod", () => {
    expect(report.schemaIsProjectZod).toBe(true);
  });
});
