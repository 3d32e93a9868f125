import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The unit project's guard (test/helpers/unit-guard.ts), run by vitest over fixtures that each do one
// thing it refuses or allows: what it refuses fails with a message that says what to do.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const CONFIG = 'test/helpers/fixtures/real-time/vitest.config.ts';

interface Report {
  testResults: {
    name: string;
    status: string;
    message: string;
    assertionResults: { title: string; status: string; failureMessages: string[] }[];
  }[];
}

let dir: string;
let report: Report;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'unit-guard-'));
  const output = join(dir, 'report.json');
  const child = spawn(process.execPath, [VITEST, 'run', '--config', CONFIG, '--reporter=json', `--outputFile=${output}`], {
    cwd: ROOT,
    env: { ...process.env, CI: '' },
    stdio: 'ignore',
  });
  await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', resolve);
  });
  report = JSON.parse(readFileSync(output, 'utf8')) as Report;
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const file = (name: string) => {
  const found = report.testResults.find((result) => result.name.endsWith(name));
  if (found === undefined) throw new Error(`no result for ${name}`);
  return found;
};

describe('the unit guard', () => {
  it.each([
    [
      'refused: a real setTimeout that fires',
      /waited on real time: a real setTimeout of 30 ms \(started at test\/helpers\/fixtures\/real-time\/waits\.fixture\.ts:\d+/,
    ],
    ["refused: a real sleep of 'node:timers/promises'", /a real setTimeout of 'node:timers\/promises' of 5 ms/],
    ['refused: an AbortSignal.timeout that fires', /a real AbortSignal\.timeout of 5 ms/],
    ['refused: a real setInterval that fires', /a real setInterval of 2 ms/],
    ['refused: Date.now() read by the test', /reads the real clock \(Date\.now\(\)\)/],
    ['refused: performance.now() read by the test', /reads the real clock \(performance\.now\(\)\)/],
    ['refused: vi.waitFor', /waits for no budget of real time \(vi\.waitFor\): await reached/],
    ['refused: a server', /starts no server: name this test file \*\.integration\.test\.ts/],
  ])('fails "%s", saying why', (title, message) => {
    const test = file('waits.fixture.ts').assertionResults.find((result) => result.title === title);
    expect(test?.status).toBe('failed');
    expect(test?.failureMessages.join('\n')).toMatch(message);
  });

  it('says what to do instead of a real wait: fake timers, or an integration test with margins', () => {
    const test = file('waits.fixture.ts').assertionResults.find((result) => result.title === 'refused: a real setTimeout that fires');
    expect(test?.failureMessages.join('\n')).toMatch(
      /vi\.useFakeTimers\(\).*vi\.advanceTimersByTimeAsync\(ms\).*\*\.integration\.test\.ts/s,
    );
  });

  it('lets pass what waits on no real time: turns, cleared timers, fake clocks, the clock read by a library', () => {
    const allowed = file('waits.fixture.ts').assertionResults.filter((result) => result.title.startsWith('allowed:'));
    expect(allowed.map((result) => [result.title, result.status])).toEqual(allowed.map((result) => [result.title, 'passed']));
    expect(allowed).toHaveLength(5);
  });

  it('fails the file when a timer fires after the test that started it, naming that test', () => {
    const stray = file('stray.fixture.ts');
    expect(stray.status).toBe('failed');
    expect(stray.message).toMatch(
      /"leaves a timer behind" \(a timer that fired after its test, or was started outside one\) waited on real time/,
    );
  });
});
