import { waitFor as poll } from '../../client/wait.js';
import type { CheckoutClient } from '../../index.js';
import { readRecord, type RecordOf, type StatusKind } from '../../kinds.js';
import { allowOnly, CREDENTIAL_OPTIONS, kindOption, type ParsedArgs } from '../args.js';
import type { AttemptTally } from '../attempt-tally.js';
import { checkAwaited, isFinalStatus, statusesOf, statusMatches, type RecordKind } from '../awaited-status.js';
import { clientFrom } from '../credentials.js';
import { CALL_TIMEOUT_MS, durationOption, formatDuration, WAIT_TIMEOUT_MS } from '../duration.js';
import { escapeText, quoted } from '../escape.js';
import { CliError, ExitCode, usage, type ExitCodeValue } from '../exit-codes.js';
import { formatJson, formatRecord } from '../format.js';
import type { CliIo } from '../io.js';

type AnyRecord = RecordOf<StatusKind>;

/** `record <externalId> --kind <kind>` and each kind's own command: read a record, or poll it with --wait-until. */
export async function recordCommand(
  command: RecordKind | 'record',
  { positionals, options }: ParsedArgs,
  io: CliIo,
  tally: AttemptTally,
): Promise<ExitCodeValue> {
  const generic = command === 'record';
  allowOnly(command, options, [
    ...CREDENTIAL_OPTIONS,
    'json',
    'wait-until',
    'timeout',
    'interval',
    ...(generic ? (['kind'] as const) : []),
  ]);
  const kind = generic ? kindOption(command, options) : command;
  const externalId = positionals[1];
  const usageLine = `checkout-partner ${command} <externalId>${generic ? ' --kind <kind>' : ''}`;
  if (externalId === undefined || externalId === '') throw usage(`missing <externalId>: ${usageLine}`, command);
  if (positionals.length > 2) throw usage(`"${command}" takes one <externalId>, got ${positionals.length - 1} arguments`, command);
  const wanted = options['wait-until'];
  if (wanted === undefined && options.interval !== undefined) throw usage('--interval only applies with --wait-until', command);
  const warning = wanted === undefined ? undefined : checkAwaited(kind, wanted, command);
  const timeoutMs = durationOption(command, 'timeout', options.timeout, wanted === undefined ? CALL_TIMEOUT_MS : WAIT_TIMEOUT_MS);
  const intervalMs = durationOption(command, 'interval', options.interval, 2000);
  const client = await clientFrom(options, io, tally, command);
  const print = (record: AnyRecord) => io.out(options.json ? formatJson(record) : formatRecord(record));

  if (wanted === undefined) {
    const read = { signal: io.signal, timeoutMs };
    print(await readRecord(client, kind, externalId, read));
    return ExitCode.Ok;
  }
  if (warning !== undefined) io.err(warning);
  const record = await waitFor(client, kind, externalId, wanted, { timeoutMs, intervalMs }, io, tally);
  const statuses = statusesOf(kind, record);
  print(record);
  if (statuses.some((status) => statusMatches(status, wanted))) return ExitCode.Ok;
  // the record is printed all the same: it is the final answer, and scripts may want its fields
  const final = statuses.find((status) => isFinalStatus(kind, status)) ?? '';
  throw new CliError(
    ExitCode.FinalStatus,
    `${kind} ${quoted(externalId)} reached ${quoted(final)}, a final status: it can never become ${quoted(wanted)}`,
  );
}

/** Polls until the awaited status or a final one; a wait that never read the record is a failure to reach the service. */
async function waitFor(
  client: CheckoutClient,
  kind: RecordKind,
  externalId: string,
  wanted: string,
  timing: { timeoutMs: number; intervalMs: number },
  io: CliIo,
  tally: AttemptTally,
): Promise<AnyRecord> {
  let last: string | undefined;
  const until = (record: AnyRecord) => {
    const statuses = statusesOf(kind, record);
    const status = statuses[0];
    if (status !== last) io.err(`${kind} ${escapeText(externalId)}: ${status === undefined ? '(no status)' : escapeText(status)}\n`);
    last = status;
    return statuses.some((s) => statusMatches(s, wanted) || isFinalStatus(kind, s));
  };
  const options = { ...timing, signal: io.signal };
  try {
    return await poll(kind, (read) => readRecord(client, kind, externalId, read), until, options);
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'WaitTimeoutError') throw error;
    const within = formatDuration(timing.timeoutMs);
    if ((error as { lastRecord?: unknown }).lastRecord === undefined) {
      // not one read answered: the service is unreachable or hangs, which is exit 1 like any
      // failed call, not "the status did not come" (5)
      throw new CliError(
        ExitCode.ApiError,
        `could not reach the service: no answer within ${within} while waiting for ${kind} ${quoted(externalId)} (${tally.describe()})`,
        'Check CHECKOUT_BASE_URL (or --base-url), or allow more with --timeout.',
      );
    }
    throw new CliError(
      ExitCode.WaitTimeout,
      `timed out after ${within} waiting for ${kind} ${quoted(externalId)} to reach ${quoted(wanted)} (last status: ${last === undefined ? 'none' : quoted(last)})`,
    );
  }
}
