import { LOOPBACK } from '../../client/insecure-http.js';
import { createEvent, deliverEvent, EventDeliveryError, type DeliveryReport } from '../../testing/index.js';
import { isFinalRefusal } from '../../testing/deliver-event.js';
import { allowOnly, type ParsedArgs } from '../args.js';
import type { AttemptTally } from '../attempt-tally.js';
import { durationOption, formatDuration, WAIT_TIMEOUT_MS } from '../duration.js';
import { escapeText, quoted } from '../escape.js';
import { CliError, ExitCode, usage, type ExitCodeValue } from '../exit-codes.js';
import { formatJson } from '../format.js';
import type { CliIo } from '../io.js';
import { readSecret, WEBHOOK_SECRET } from '../secret-source.js';
import { readBody, webhookUrl } from '../webhook-input.js';

/** The provider's own bound on one attempt: it wants a 2xx within about 10 s. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * `webhook send --to URL`: a test event signed and delivered as the payment provider does (the
 * testing kit's `deliverEvent`), all of it bounded by --timeout.
 */
export async function webhookSendCommand({ positionals, options }: ParsedArgs, io: CliIo, tally: AttemptTally): Promise<ExitCodeValue> {
  allowOnly('webhook send', options, [
    'to',
    'secret',
    'secret-file',
    'secret-stdin',
    'type',
    'event-id',
    'trade-id',
    'body-file',
    'allow-insecure-http',
    'timeout',
    'json',
  ]);
  if (positionals.length > 2) throw usage('"webhook send" takes no more arguments; the receiver is --to <url>', 'webhook');
  const url = receiverUrl(options);
  checkEventFlags(options);
  const timeoutMs = durationOption('webhook', 'timeout', options.timeout, WAIT_TIMEOUT_MS);
  const secret = await readSecret(options, io, WEBHOOK_SECRET, 'webhook');
  if (secret === undefined) {
    throw new CliError(
      ExitCode.Auth,
      'missing signing secret: set CHECKOUT_WEBHOOK_SECRET (or pass --secret-file <path> or --secret-stdin)',
    );
  }
  const event =
    options['body-file'] !== undefined
      ? bodyText(await readBody(options['body-file'], io, '--body-file'), options['body-file'])
      : eventFrom(options);

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const attempts = new AttemptRecord(tally);
  try {
    const report = await deliverEvent(url, event, {
      secret,
      timeoutMs: Math.min(ATTEMPT_TIMEOUT_MS, timeoutMs),
      signal: AbortSignal.any([io.signal, deadline.signal]),
      fetch: (request) => attempts.fetch(request),
    });
    printDelivered(report, url, options.json === true, attempts, io, tally);
    return ExitCode.Ok;
  } catch (error) {
    if (error instanceof EventDeliveryError) {
      printFailedAttempts(error.attempts, attempts.causes, io);
      const refused = error.attempts.at(-1)?.status;
      if (refused !== undefined && isFinalRefusal(refused)) {
        throw new CliError(
          ExitCode.ApiError,
          `the receiver refused the event with status ${refused} (a 4xx other than 408, 409 and 429 is final: not retried)`,
        );
      }
      throw new CliError(
        ExitCode.ApiError,
        `the receiver did not accept the event: no 2xx after ${tally.describe()} (last: ${attempts.last ?? 'no response'})`,
      );
    }
    if (deadline.signal.aborted && !io.signal.aborted) {
      throw new CliError(
        ExitCode.ApiError,
        `the receiver did not accept the event within --timeout (${formatDuration(timeoutMs)}): ${tally.describe()} (last: ${attempts.last ?? 'no response'})`,
      );
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The --to URL, checked. The receiver is the partner's own, but over plain http the event and its
 * signature cross the network in clear text and can be replayed: the same opt-in as the client's base URL.
 */
function receiverUrl(options: ParsedArgs['options']): string {
  if (options.to === undefined || options.to === '') throw usage('missing --to <url>: the webhook receiver to deliver to', 'webhook');
  const url = webhookUrl(options.to, '--to');
  const { hostname, protocol } = new URL(url);
  if (protocol === 'http:' && !LOOPBACK.test(hostname) && options['allow-insecure-http'] !== true) {
    throw new CliError(
      ExitCode.Usage,
      `--to uses plain http (${hostname}), which would send the signed event in clear text`,
      'Use https, or pass --allow-insecure-http if this is a private network you trust.',
    );
  }
  return url;
}

/** --type, --event-id and --trade-id each need a value, and none goes with --body-file (sent as it is). */
function checkEventFlags(options: ParsedArgs['options']): void {
  const fields = (['type', 'event-id', 'trade-id'] as const).filter((name) => options[name] !== undefined);
  if (options['body-file'] !== undefined && fields.length > 0) {
    throw usage(`--body-file sends the file as it is: leave out --${fields.join(', --')}`, 'webhook');
  }
  for (const name of fields) if (options[name] === '') throw usage(`--${name} needs a value`, 'webhook');
}

/** Each attempt's fetch, counted, with what is printed of it: the last answer, and the network error's cause per attempt. */
class AttemptRecord {
  readonly #tally: AttemptTally;
  /** The last attempt's answer (`status 503`, `no response`, or the network error). */
  last: string | undefined;
  /** The network error's code or reason per attempt (fetch's own message is only "fetch failed"). */
  readonly causes: (string | undefined)[] = [];

  constructor(tally: AttemptTally) {
    this.#tally = tally;
  }

  async fetch(request: Request): Promise<Response> {
    this.#tally.add();
    try {
      const response = await fetch(request);
      this.last = `status ${response.status}`;
      this.causes.push(undefined);
      return response;
    } catch (error) {
      if (request.signal.aborted) {
        // the attempt's own 10 s, or --timeout, ran out while waiting for the receiver
        this.causes.push(undefined);
        this.last = 'no response';
        throw error;
      }
      const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
      const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : undefined;
      this.causes.push(detail);
      this.last = `${error instanceof Error ? error.message : String(error)}${detail === undefined ? '' : ` (${detail})`}`;
      throw error;
    }
  }
}

/** The accepted delivery: one JSON object with --json, else the failed attempts before it and one line. */
function printDelivered(report: DeliveryReport, url: string, json: boolean, attempts: AttemptRecord, io: CliIo, tally: AttemptTally): void {
  const delivery = report.deliveries[0]!;
  const { eventId, type } = idsOf(report.body);
  if (json) {
    io.out(formatJson({ url, eventId, type, signature: report.signature, status: delivery.status, attempts: delivery.attempts }));
    return;
  }
  printFailedAttempts(delivery.attempts.slice(0, -1), attempts.causes, io);
  io.out(
    `delivered ${eventId === undefined ? 'the body' : `event ${escapeText(eventId)}`}${type === undefined ? '' : ` (${escapeText(type)})`} ` +
      `to ${escapeText(url)}: ${delivery.status} after ${tally.describe()}\n`,
  );
}

/** `{ eventId, type, tradeId? }` from the flags: a fresh `evt_…` id unless --event-id, `otc.trade.settled` unless --type. */
function eventFrom(options: ParsedArgs['options']) {
  const event = createEvent(options.type ?? 'otc.trade.settled', options['trade-id'] === undefined ? {} : { tradeId: options['trade-id'] });
  return options['event-id'] === undefined ? event : { ...event, eventId: options['event-id'] };
}

/** The file's text, sent byte for byte: a BOM is kept, bytes that are not UTF-8 are refused (they could not be sent unchanged). */
function bodyText(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw usage(`--body-file ${quoted(path)} is not UTF-8 text`, 'webhook');
  }
}

/** The event's id and type, when the body is a JSON object naming them. */
function idsOf(body: string): { eventId?: string; type?: string } {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed === null || typeof parsed !== 'object') return {};
    const { eventId, type } = parsed as Record<string, unknown>;
    return { ...(typeof eventId === 'string' ? { eventId } : {}), ...(typeof type === 'string' ? { type } : {}) };
  } catch {
    return {};
  }
}

function printFailedAttempts(attempts: EventDeliveryError['attempts'], causes: readonly (string | undefined)[], io: CliIo): void {
  attempts.forEach((attempt, index) => {
    const cause = causes[index] === undefined ? '' : ` (${causes[index]})`;
    const outcome =
      attempt.status === undefined
        ? `${attempt.error ?? 'no response'}${cause}`
        : `${attempt.status}${attempt.body ? ` ${attempt.body.slice(0, 200)}` : ''}`;
    io.err(`attempt ${index + 1}: ${escapeText(outcome)}\n`);
  });
}
