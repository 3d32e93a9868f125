import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryUsable } from '../examples/packed-project.js';
import { packedTarball, spawn } from '../toolchains/packed.js';

// zod is a peer dependency (`^4`, not optional): `npm install checkout-partner-sdk zod` in a fresh
// project, from the packed tarball and the registry, as a partner installs it. With zod 4 the SDK's
// schemas are the project's own zod's and compose with it; with zod 3 npm refuses the install, and
// an install forced past that fails at import, naming the zod subpath it lacks.

const NPM_INSTALL = ['install', '--no-audit', '--no-fund', '--loglevel=error'];
const ORDER = { externalId: 'ord_1', currency: 'BRZ', settlement: { status: 'Settled', tradeId: null }, extra: 1 };

/** Composes the SDK's OrderSchema into the project's zod, for either format. */
const probe = (load: string) => `
  const { OrderSchema } = ${load}('checkout-partner-sdk');
  const { z } = ${load}('zod');
  const mini = ${load}('zod/mini');
  const composed = z.object({ o: OrderSchema }).parse({ o: ${JSON.stringify(ORDER)} });
  const refused = z.object({ o: OrderSchema }).safeParse({ o: { currency: 'BRZ' } });
  console.log(JSON.stringify({
    composed,
    refusedPath: refused.success ? null : refused.error.issues[0].path,
    projectZod: OrderSchema instanceof z.core.$ZodType && OrderSchema.constructor === mini.ZodMiniObject,
  }));
`;

const online = await registryUsable('zod peer dependency (npm install of the packed tarball)');
let tarball: string;
const dirs: string[] = [];

/** A fresh project folder holding `package.json` with `type`. */
function freshProject(name: string, type: 'module' | 'commonjs'): string {
  const dir = mkdtempSync(join(tmpdir(), `checkout-zod-peer-${name}-`));
  dirs.push(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type }, null, 2));
  return dir;
}

beforeAll(() => {
  if (online) tarball = packedTarball();
}, 900_000);
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!online)('a project on zod 4', () => {
  let dir: string;
  beforeAll(() => {
    dir = freshProject('zod4', 'module');
    const install = spawn('npm', [...NPM_INSTALL, 'zod@4', tarball], { cwd: dir, timeoutMs: 600_000 });
    expect(install.status, install.stderr).toBe(0);
    writeFileSync(join(dir, 'probe.mjs'), probe('await import'));
    writeFileSync(join(dir, 'probe.cjs'), probe('require'));
  }, 900_000);

  it('installs one zod: the project’s, none nested under the SDK', () => {
    const ls = spawn('npm', ['ls', 'zod', '--all', '--parseable'], { cwd: dir, timeoutMs: 60_000 });
    expect(ls.status, ls.stderr).toBe(0);
    expect(ls.stdout.trim().split('\n')).toEqual([join(dir, 'node_modules', 'zod')]);
  });

  it.each(['probe.mjs', 'probe.cjs'])('%s: OrderSchema is the project’s zod and composes with z.object', (file) => {
    const result = spawn(process.execPath, [file], { cwd: dir, timeoutMs: 60_000 });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ composed: { o: ORDER }, refusedPath: ['o', 'externalId'], projectZod: true });
  });
});

describe.skipIf(!online)('a project on zod 3', () => {
  let dir: string;
  beforeAll(() => {
    dir = freshProject('zod3', 'module');
    writeFileSync(join(dir, 'probe.mjs'), `await import('checkout-partner-sdk');\nconsole.log('imported');\n`);
  });

  it('npm refuses the install (ERESOLVE), naming the zod 4 peer the SDK needs', () => {
    const install = spawn('npm', [...NPM_INSTALL, 'zod@3', tarball], { cwd: dir, timeoutMs: 600_000 });
    expect(install.status).not.toBe(0);
    const output = `${install.stdout}${install.stderr}`;
    expect(output).toContain('ERESOLVE');
    expect(output).toMatch(/Found: zod@3\.\d+\.\d+/);
    // npm prefixes each line of the report (`npm error `)
    expect(output).toMatch(/Could not resolve dependency:\n.*peer zod@"\^4" from checkout-partner-sdk@/);
  }, 600_000);

  it('forced past that (--legacy-peer-deps), the import fails, naming the zod 4 subpath', () => {
    const install = spawn('npm', [...NPM_INSTALL, '--legacy-peer-deps', 'zod@3', tarball], { cwd: dir, timeoutMs: 600_000 });
    expect(install.status, install.stderr).toBe(0);
    const result = spawn(process.execPath, ['probe.mjs'], { cwd: dir, timeoutMs: 60_000 });
    expect(result.status).not.toBe(0);
    expect(result.stdout).not.toContain('imported');
    expect(result.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
    expect(result.stderr).toMatch(/subpath '\.\/mini' is not defined by "exports" in \S*node_modules\/zod\/package\.json/);
  }, 600_000);
});
