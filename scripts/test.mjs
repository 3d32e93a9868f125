#!/usr/bin/env node
// `npm test`: the suite a contributor runs before every commit (the unit and the integration
// projects, vitest.config.ts), then one line naming what it left out and the command that runs it.
// Arguments go to vitest (`npm test -- test/client`). `npm run test:all` runs every project.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// vitest's own bin (its `exports` do not name it)
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const args = ['run', '--project', 'unit', '--project', 'integration', ...process.argv.slice(2)];
const result = spawnSync(process.execPath, [vitest, ...args], { stdio: 'inherit' });
console.log(
  'npm test left out the slow project (packed-tarball tests with Next.js, Jest, esbuild, webpack and tsc in fresh projects, ' +
    'and the tests that wait 15 s or more on real clocks: vitest.config.ts lists them) ' +
    'and the types project (the *.test-d.ts type tests, also run by npm run typecheck): run everything with npm run test:all',
);
process.exit(result.status ?? 1);
