import { stderrTrackerLogger } from '../../tracker/logger.js';
import { createStatusTracker } from '../../tracker/tracker.js';
import { MemoryStatusStore } from '../../stores/memory-status-store.js';
import type { StatusChange } from '../../tracker/types.js';
import { allowOnly, CREDENTIAL_OPTIONS, kindOption, type ParsedArgs } from '../args.js';
import type { AttemptTally } from '../attempt-tally.js';
import { clientFrom } from '../credentials.js';
import { durationOption, formatDuration } from '../duration.js';
import { escapeText } from '../escape.js';
import { CliError, ExitCode, usage, type ExitCodeValue } from '../exit-codes.js';
import type { CliIo } from '../io.js';

/**
 * `watch <externalId>...`: a status tracker in this process, printing each status change as it
 * happens (one line each, or one JSON line with --json) until every record reached a final status
 * (exit 0), --timeout runs out (exit 5) or Ctrl-C (exit 0).
 */
export async function watchCommand({ positionals, options }: ParsedArgs, io: CliIo, tally: AttemptTally): Promise<ExitCodeValue> {
  allowOnly('watch', options, [...CREDENTIAL_OPTIONS, 'json', 'kind', 'withdrawal', 'timeout', 'interval']);
  const ids = positionals.slice(1);
  if (ids.length === 0 || ids.some((id) => id === ''))
    throw usage('missing <externalId>: checkout-partner watch <externalId>... [--kind <kind>]', 'watch');
  const kind = kindOption('watch', options, 'order');
  const timeoutMs = options.timeout === undefined ? undefined : durationOption('watch', 'timeout', options.timeout, 0);
  const intervalMs = durationOption('watch', 'interval', options.interval, 2000);
  const client = await clientFrom(options, io, tally, 'watch');

  const open = new Set(ids);
  let finished: () => void = () => undefined;
  const allFinal = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const print = (change: StatusChange) => {
    if (options.json) {
      const { kind: k, externalId, status, previousStatus, source, record } = change;
      // previousStatus is left out on a first change (null would mean "the status handled before was none")
      io.out(
        `${JSON.stringify({ kind: k, externalId, status, ...(previousStatus === undefined ? {} : { previousStatus }), source, record })}\n`,
      );
    } else {
      const shown = (status: string | null) => (status === null ? '(none)' : escapeText(status));
      io.out(
        `${change.kind} ${escapeText(change.externalId)}: ${change.previousStatus === undefined ? '' : `${shown(change.previousStatus)} -> `}${shown(change.status)}\n`,
      );
    }
  };
  // the SDK's stderr line for the failures the notes below do not cover (at most once a minute each)
  const failures = stderrTrackerLogger();
  /** Per record, the note last printed: a note repeats only when what it says changed (no line per read). */
  const noted = new Map<string, string>();
  const noteOnce = (externalId: string, note: string | undefined) => {
    if (note === undefined) noted.delete(externalId);
    else if (noted.get(externalId) !== note) {
      noted.set(externalId, note);
      io.err(`${kind} ${escapeText(externalId)}: ${note}\n`);
    }
  };
  const tracker = createStatusTracker({
    client,
    store: new MemoryStatusStore({ maxRecords: ids.length + 1 }),
    // a person watching: every interval for as long as it runs, never backing off
    schedule: {
      fastIntervalMs: intervalMs,
      fastForMs: Number.MAX_SAFE_INTEGER,
      maxIntervalMs: intervalMs,
      safetyIntervalMs: intervalMs,
      jitter: 0,
    },
    onChange: print,
    onWatchEnd: ({ externalId }) => {
      open.delete(externalId);
      if (open.size === 0) finished();
    },
    // one line per read outcome that needs telling, and only when it changes: a record that is
    // not created yet or a service that is down says so once, not at every --interval
    logger: (entry) => {
      if (entry.event !== 'tracker.read') {
        failures(entry);
        return;
      }
      const id = entry.externalId ?? '';
      if (entry.outcome === 'not-found') noteOnce(id, 'not found (yet); still watching');
      else if (entry.outcome === 'failed')
        noteOnce(id, `read failed: ${escapeText(entry.error?.message ?? 'unknown error')}; still watching`);
      else noteOnce(id, undefined);
    },
  });
  for (const id of ids) await tracker.watch(kind, id);
  tracker.start();

  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    if (timeoutMs !== undefined) timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const interrupted = new Promise<'interrupted'>((resolve) => {
    if (io.signal.aborted) resolve('interrupted');
    io.signal.addEventListener('abort', () => resolve('interrupted'), { once: true });
  });
  const outcome = await Promise.race([allFinal.then(() => 'final' as const), timedOut, interrupted]);
  clearTimeout(timer);
  await tracker.drain({ timeoutMs: 5_000 });
  if (outcome === 'timeout') {
    throw new CliError(
      ExitCode.WaitTimeout,
      `timed out after ${formatDuration(timeoutMs!)} with ${[...open].map(escapeText).join(', ')} not final yet`,
    );
  }
  return ExitCode.Ok;
}
