import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** What {@link runTrackerMember} runs: one tracker process of a fleet (test/postgres/fixtures/skewed-tracker.ts). */
export interface TrackerMember {
  url: string;
  table: string;
  effects: string;
  owner: string;
  /** Orders o-0 … o-(count-1), Settled in the member's fake service. */
  count: number;
  /** How far off the member's `Date` is (test/helpers/skewed-clock.mjs). */
  skewMs?: number;
  /** A step of the member's wall clock during its first onChange. */
  stepMs?: number;
  workMs?: number;
}

/** What a member reports: its onChange calls, and what its tracker logged as warnings or errors. */
export interface MemberReport {
  calls: { call: string; owner: string; wallClock: number }[];
  failures: string[];
  exitCode: number | null;
  stderr: string;
}

/** Runs one tracker process until no record is watched (bounded by the fixture: 45 s). */
export async function runTrackerMember(member: TrackerMember): Promise<MemberReport> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      join(ROOT, 'test', 'helpers', 'skewed-clock.mjs'),
      '--import',
      'tsx',
      join(import.meta.dirname, 'fixtures', 'skewed-tracker.ts'),
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'),
        CLOCK_SKEW_MS: String(member.skewMs ?? 0),
        STEP_MS: String(member.stepMs ?? 0),
        PG_URL: member.url,
        TABLE: member.table,
        EFFECTS: member.effects,
        OWNER: member.owner,
        COUNT: String(member.count),
        WORK_MS: String(member.workMs ?? 500),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [exitCode] = (await once(child, 'exit')) as [number | null];
  const lines = stdout.split('\n');
  return {
    calls: lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as MemberReport['calls'][number]),
    failures: lines.filter((line) => line.startsWith('FAILED')),
    exitCode: lines.includes('DONE') ? exitCode : -1,
    stderr,
  };
}
