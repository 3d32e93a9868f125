import type { CheckoutClient, Order, Withdrawal } from '../../index.js';
import { allowOnly, CREDENTIAL_OPTIONS, secondsOption, type ParsedArgs } from '../args.js';
import { clientFrom } from '../credentials.js';
import { CliError, ExitCode, usage, type ExitCodeValue } from '../exit-codes.js';
import { formatJson, formatRecord } from '../format.js';
import type { CliIo } from '../io.js';

type Kind = 'order' | 'withdrawal';

/** The status `--wait-until` compares: an order's settlement.status (or a top-level status), a withdrawal's status. */
function statusOf(kind: Kind, record: Order | Withdrawal): string | undefined {
  if (kind === 'withdrawal') return typeof record.status === 'string' ? record.status : undefined;
  const order = record as Order;
  return order.settlement?.status ?? (typeof order.status === 'string' ? order.status : undefined);
}

function statusMatches(kind: Kind, record: Order | Withdrawal, wanted: string): boolean {
  if (statusOf(kind, record) === wanted) return true;
  return kind === 'order' && record.status === wanted; // an order may carry both
}

/** `order <externalId>` and `withdrawal <externalId>`: read the status, or poll for one with --wait-until. */
export async function recordCommand(kind: Kind, { positionals, options }: ParsedArgs, io: CliIo): Promise<ExitCodeValue> {
  allowOnly(kind, options, [...CREDENTIAL_OPTIONS, 'json', 'wait-until', 'timeout', 'interval']);
  const externalId = positionals[1];
  if (externalId === undefined || externalId === '') throw usage(`missing <externalId>: checkout-partner ${kind} <externalId>`, kind);
  if (positionals.length > 2) throw usage(`"${kind}" takes one <externalId>, got ${positionals.length - 1} arguments`, kind);
  const wanted = options['wait-until'];
  if (wanted === '') throw usage('--wait-until needs a status, e.g. Settled or Completed', kind);
  if (wanted === undefined && (options.timeout !== undefined || options.interval !== undefined)) {
    throw usage('--timeout and --interval only apply with --wait-until', kind);
  }
  const timeoutMs = secondsOption(kind, 'timeout', options.timeout, 60);
  const intervalMs = secondsOption(kind, 'interval', options.interval, 2);
  const client = clientFrom(options, io);

  const record = wanted === undefined ? await read(client, kind, externalId, io) : await waitFor(client, kind, externalId, wanted, { timeoutMs, intervalMs }, io);
  io.out(options.json ? formatJson(record) : formatRecord(record));
  return ExitCode.Ok;
}

function read(client: CheckoutClient, kind: Kind, externalId: string, io: CliIo): Promise<Order | Withdrawal> {
  return kind === 'order'
    ? client.getOrderByExternalId(externalId, { signal: io.signal })
    : client.getWithdrawalByExternalId(externalId, { signal: io.signal });
}

async function waitFor(
  client: CheckoutClient,
  kind: Kind,
  externalId: string,
  wanted: string,
  timing: { timeoutMs: number; intervalMs: number },
  io: CliIo,
): Promise<Order | Withdrawal> {
  let last: string | undefined;
  const until = (record: Order | Withdrawal) => {
    const status = statusOf(kind, record);
    if (status !== last) io.err(`${kind} ${externalId}: ${status ?? '(no status)'}\n`);
    last = status;
    return statusMatches(kind, record, wanted);
  };
  const options = { ...timing, signal: io.signal };
  try {
    return kind === 'order'
      ? await client.waitForOrder(externalId, until, options)
      : await client.waitForWithdrawal(externalId, until, options);
  } catch (error) {
    if (error instanceof Error && error.name === 'WaitTimeoutError') {
      const seconds = timing.timeoutMs / 1000;
      throw new CliError(
        ExitCode.WaitTimeout,
        `timed out after ${seconds} s waiting for ${kind} ${externalId} to reach ${wanted} (last status: ${last ?? 'none read'})`,
      );
    }
    throw error;
  }
}
