import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, toolProject } from './packed.js';

// Every entry's declarations in a Node-only project: `lib: ["es2023"]` (no DOM), `types: ["node"]`,
// `skipLibCheck: false` (so the SDK's own .d.ts files are checked), in every resolution mode.
const ENTRIES = [
  `import { CheckoutClient, CheckoutError, type Order } from 'checkout-partner-sdk';`,
  `import { createWebhookHandler, parseEvent } from 'checkout-partner-sdk/webhooks';`,
  `import { RedisEventStore } from 'checkout-partner-sdk/redis';`,
  `import { PostgresEventStore } from 'checkout-partner-sdk/postgres';`,
  `import { createStatusTracker, MemoryStatusStore } from 'checkout-partner-sdk/tracker';`,
  `import { LeaseLostError, type EventStore } from 'checkout-partner-sdk/stores';`,
  `import { createFakeCheckout, deliverEvent } from 'checkout-partner-sdk/testing';`,
  `import { fakeCheckoutHandlers } from 'checkout-partner-sdk/testing/msw';`,
].join('\n');
const USES = `
const fake = createFakeCheckout({ partners: [{ partnerId: 'p', partnerSecret: 's' }] });
export const client = new CheckoutClient({ baseUrl: 'http://127.0.0.1:1', partnerId: 'p', partnerSecret: 's', fetch: fake.fetch });
export const read = (id: string): Promise<Order> => client.getOrderByExternalId(id);
export const response: Promise<Response> = fake.fetch(new Request('http://127.0.0.1:1/x'));
export const handlers: ReturnType<typeof fake.handlers> = fake.handlers('https://checkout.test');
export const values = [CheckoutError, createWebhookHandler, parseEvent, RedisEventStore, PostgresEventStore, createStatusTracker, MemoryStatusStore, LeaseLostError, deliverEvent, fakeCheckoutHandlers] as const;
export const stores: EventStore[] = [];
`;

/** name → compiler options and the package type of the consumer project. */
const MODES = {
  node16: { options: { module: 'node16', moduleResolution: 'node16' }, type: 'module' },
  'node16 (CommonJS)': { options: { module: 'node16', moduleResolution: 'node16' }, type: 'commonjs' },
  nodenext: { options: { module: 'nodenext', moduleResolution: 'nodenext' }, type: 'module' },
  'nodenext (CommonJS)': { options: { module: 'nodenext', moduleResolution: 'nodenext' }, type: 'commonjs' },
  bundler: { options: { module: 'esnext', moduleResolution: 'bundler' }, type: 'module' },
  // a CommonJS project on node10 resolution (deprecated in TypeScript 6): it reads typesVersions
  node10: { options: { module: 'commonjs', moduleResolution: 'node', esModuleInterop: true, ignoreDeprecations: '6.0' }, type: 'commonjs' },
} as const;

const work = mkdtempSync(join(tmpdir(), 'checkout-types-'));
let dir = '';
beforeAll(() => {
  dir = toolProject(join(work, 'app'), ['typescript@6', '@types/node@24', 'msw@3']);
}, 900_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('every entry type-checks without the DOM library (lib es2023, types node)', () => {
  it.each(Object.keys(MODES))(
    '%s',
    (mode) => {
      const { options, type } = MODES[mode as keyof typeof MODES];
      const project = join(dir, `mode-${mode.replace(/\W+/g, '-')}`);
      mkdirSync(project);
      writeFileSync(join(project, 'package.json'), JSON.stringify({ private: true, type }));
      writeFileSync(join(project, 'consumer.ts'), `${ENTRIES}\n${USES}`);
      const compilerOptions = {
        ...options,
        target: 'es2023',
        lib: ['es2023'],
        types: ['node'],
        strict: true,
        skipLibCheck: false,
        noEmit: true,
      };
      writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
      const result = spawn(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', project], {
        cwd: project,
        timeoutMs: 180_000,
      });
      const errors = `${result.stdout}${result.stderr}`;
      // msw's own declarations (and its rettime's) are msw's, and so is msw 3 being ESM only, which a
      // CommonJS file under node16 cannot import (TS1479 at testing/msw's `import 'msw'`): only the
      // SDK's and the consumer's must be clean
      const ours = errors
        .split('\n')
        .filter((line) => line.includes('error TS'))
        .filter(
          (line) => !/node_modules\/(msw|@mswjs|rettime)\//.test(line) && !/dist\/testing\/msw\.d\.cts\(1,\d+\): error TS1479/.test(line),
        );
      expect(ours).toEqual([]);
    },
    180_000,
  );
});
