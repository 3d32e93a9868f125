// Setup file of the `unit` project (vitest.config.ts): a unit test starts no server and no
// subprocess. Either makes it an integration test, so this says how to name it instead of letting it
// run under the unit project's short timeout.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const refuse = (what: string) =>
  function refused(): never {
    throw new Error(`a unit test starts no ${what}: name this test file *.integration.test.ts (vitest.config.ts)`);
  };

net.Server.prototype.listen = refuse('server');
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = refuse('subprocess');
}
// `import { spawn } from 'node:child_process'` reads the ESM bindings: bring them in line
syncBuiltinESMExports();
