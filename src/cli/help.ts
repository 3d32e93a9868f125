import { RECORD_KINDS, STATUS_KINDS, type StatusKind } from '../kinds.js';

/** The kinds, for a help line: `order, …`. */
const KINDS = STATUS_KINDS.join(', ');

/** When a kind's status is final, by the kinds table: `an order is final when Settled, Cancelled or "cancel..."`. */
function finalRule(kind: StatusKind): string {
  const { named, finalStatuses, finalPrefixes } = RECORD_KINDS[kind];
  const names = [...finalStatuses, ...finalPrefixes.map((prefix) => `"${prefix}..."`)];
  return `${named} is final when ${names.slice(0, -1).join(', ')}${names.length > 1 ? ' or ' : ''}${names.at(-1) ?? ''}`;
}

const CREDENTIALS = `Credentials (flags override the environment):
  --base-url <url>              CHECKOUT_BASE_URL        the service origin, e.g. https://checkout.example.com
  --partner-id <id>             CHECKOUT_PARTNER_ID      the partner's client id
                                CHECKOUT_PARTNER_SECRET  the partner's client secret (never printed), or:
  --partner-secret-file <path>  read it from a file (one trailing newline dropped; - for stdin)
  --partner-secret-stdin        read it from stdin, e.g. pass show checkout | checkout-partner me --partner-secret-stdin
  --partner-secret <s>          works, with a warning: argv shows in ps and in the shell history
  --allow-insecure-http         allow a plain http:// base URL off loopback (the secret and token
                                then cross the network in clear text; localhost needs no flag)

Debugging: CHECKOUT_LOG=debug prints one line per HTTP attempt, retry and token exchange on stderr
(method, path, status, ms, request id; never a secret or token).`;

const TIMEOUT = `  --timeout <duration>    bounds the whole command, retries and token exchange included:
                          500ms, 30s, 2m, or a bare number of seconds`;

const EXIT_CODES = `Exit codes:
  0 ok
  1 API or network error: the service answered with an error, could not be reached, or did not
    answer within --timeout (the message says how many HTTP attempts were made); a webhook
    receiver did not accept the event
  2 usage error   3 missing credentials or authentication failed   4 not found
  5 --wait-until timed out (the record was read, the status did not come)
  6 webhook signature invalid
  7 --wait-until reached a final status that can never become the awaited one (e.g. Cancelled
    while waiting for Settled); the record is printed`;

const OUTPUT = `Output: control characters in what the service or the user sent (ESC, BEL, CR, LF, C1, bidi
controls) are shown escaped (\\x1b, \\u009b); --json output stays valid JSON, with C1 and
U+2028/2029 written as \\u escapes.`;

const WAIT = `  --wait-until <status>   poll until the status equals <status> (any case), or until a final status
                          that can never become it (exit 7). The service's full set of statuses is not
                          published: a near-miss of a named one (Setled) is refused, another value
                          waited for with a warning. Final statuses, any case:
${STATUS_KINDS.map((kind) => `                            ${finalRule(kind)}`).join('\n')}
  --timeout <duration>    how long to wait, e.g. 500ms, 90s, 2m, or bare seconds (default 60s); exit 5
                          when it runs out, 1 when not one read was answered (service unreachable)
  --interval <duration>   time between two reads (default 2s)`;

/** A record command's help: `record` (any kind, with --kind) or the kind's own command. */
function recordHelp(kind: StatusKind | undefined): string {
  const command = kind === undefined ? 'record <externalId> --kind <kind>' : `${kind} <externalId>`;
  const reads =
    kind === undefined
      ? `Reads a record of the kind --kind names, by its externalId:\n${STATUS_KINDS.map((k) => `  ${k.padEnd(22)}GET ${RECORD_KINDS[k].path}`).join('\n')}`
      : `Reads GET ${RECORD_KINDS[kind].path}; --wait-until compares ${RECORD_KINDS[kind].named}'s status (or a top-level status).`;
  return `Usage: checkout-partner ${command} [--wait-until <status>] [--timeout <duration>] [--interval <duration>] [--json]

${reads}

${kind === undefined ? `  --kind <kind>           the record's kind: ${KINDS}\n` : ''}${WAIT}
  --json                  print the record as JSON

Without --wait-until, --timeout bounds the one read (default 30s).

${CREDENTIALS}

${EXIT_CODES}
`;
}

/** The global help's line for each kind's command. */
const KIND_COMMANDS = STATUS_KINDS.map(
  (kind) => `  ${`${kind} <externalId>`.padEnd(27)}read ${RECORD_KINDS[kind].named}'s status; --wait-until to poll for a status`,
).join('\n');

/** The help topics: `global` and each command. */
export type HelpTopic = 'global' | 'me' | StatusKind | 'record' | 'watch' | 'token' | 'webhook' | 'sandbox';

/** The help texts, one per command; `--help` prints them on stdout. */
export const HELP: Readonly<Record<HelpTopic, string>> = {
  global: `Usage: checkout-partner <command> [options]

Commands:
  me                         check the credentials (GET /auth/me)
${KIND_COMMANDS}
  record <externalId>        read a record of any kind (--kind ${KINDS}); --wait-until as above
  watch <externalId>...      print each status change of records of one kind (--kind, default order)
  token                      mint an access token and show its expiry (--show prints the token)
  webhook sign               sign a webhook body as the payment provider does (--curl prints a curl line)
  webhook verify             check a webhook body against its signature
  webhook send               deliver a signed test event to your receiver, retrying like the provider
  sandbox                    run a fake checkout service on 127.0.0.1 with demo data

Options:
  --json                     machine-readable output on stdout
  --timeout <duration>       bounds the whole command, retries and token exchange included:
                             500ms, 30s, 2m, or a bare number of seconds (default 30s for one
                             call, 60s for --wait-until and webhook send)
  -h, --help                 help (also after a command: checkout-partner order --help)
  -v, --version              the version

${CREDENTIALS}

${OUTPUT}

${EXIT_CODES}
`,
  me: `Usage: checkout-partner me [--timeout <duration>] [--json]

Exchanges the credentials for a token and calls GET /auth/me: success means the credentials are
valid and the partner API is enabled for the partner.

${TIMEOUT} (default 30s)

${CREDENTIALS}

${EXIT_CODES}
`,
  ...(Object.fromEntries(STATUS_KINDS.map((kind) => [kind, recordHelp(kind)])) as Record<StatusKind, string>),
  record: recordHelp(undefined),
  watch: `Usage: checkout-partner watch <externalId>... [--kind <kind>] [--interval <duration>] [--timeout <duration>] [--json]

Watches records of one kind with the SDK's status tracker and prints each status change as it
happens, one line each ("order order-42: Pending -> Settled"), until every record reached a final
status (exit 0), until --timeout runs out (exit 5), or until Ctrl-C (exit 0). A record not created
yet is watched on. Final statuses, any case:
${STATUS_KINDS.map((kind) => `  ${finalRule(kind)}`).join('\n')}

  --kind <kind>           the ids' kind: ${KINDS} (default: order; --withdrawal is --kind withdrawal)
  --interval <duration>   time between two reads of a record (default 2s; 500ms, 2s, 1.5m or seconds)
  --timeout <duration>    give up after this long (default: no limit)
  --json                  one JSON line per change: kind, externalId, status, previousStatus, source, record

${CREDENTIALS}
`,
  token: `Usage: checkout-partner token [--show] [--timeout <duration>] [--json]

Mints an access token through POST /auth/token and shows when it expires. The token itself is
printed only with --show (alone on stdout, so TOKEN=$(checkout-partner token --show) works).

${TIMEOUT} (default 30s)

${CREDENTIALS}
`,
  webhook: `Usage: checkout-partner webhook sign|verify|send [options]

  webhook sign   [--file <path>] [--curl <url>]           print the signature header value
  webhook verify [--file <path>] --signature <sig>        exit 0 when valid, 6 when not
  webhook send   --to <url> [--type <t>] [--event-id <id>] [--trade-id <id>] | [--body-file <path>]
                 [--allow-insecure-http]                  deliver a signed event, exit 0 on a 2xx

sign and verify read the body from --file, else from stdin, byte for byte. The signature is the
X-Provider-Signature value: sha256=<hex> or bare hex. --curl <url> prints a curl command that
sends the file as signed:

  curl -sS -X POST https://partner.example/webhooks -H 'content-type: application/json' \\
    -H 'x-provider-signature: sha256=<hex>' --data-binary @event.json

(--data-binary, never -d: -d strips the newlines from the body and the signature no longer matches.)

send signs and POSTs like the payment provider (the testing kit's deliverEvent): no redirects
followed, up to 5 attempts with exponential backoff until a 2xx, 10 s per attempt, all within
--timeout (default 60s); every failed attempt is listed on stderr. The event is
{"eventId","type","tradeId"} from the flags (defaults: a fresh evt_... id, otc.trade.settled), or
the exact bytes of --body-file. A plain http:// receiver off loopback needs --allow-insecure-http.

The signing secret (never printed):
  CHECKOUT_WEBHOOK_SECRET, or
  --secret-file <path>    read it from a file (one trailing newline dropped; - for stdin)
  --secret-stdin          read it from stdin (the body then comes from --file)
  --secret <s>            works, with a warning: argv shows in ps and in the shell history

  --timeout <duration>    send: bounds the whole delivery (default 60s); sign and verify: bounds
                          reading a pipe that may never close (no default). 500ms, 30s, 2m, or seconds

${EXIT_CODES}
`,
  sandbox: `Usage: checkout-partner sandbox [--port <port>] [--timeout <duration>] [--json]

Runs the fake checkout service of checkout-partner-sdk/testing on 127.0.0.1, seeds a demo partner,
orders and withdrawals (some settle after a few reads), and prints the base URL and the credentials
to export. Runs until Ctrl-C (SIGINT) or SIGTERM.

  --port <port>           the port (default: a free one)
  --timeout <duration>    stop by itself after this long (exit 0), e.g. for a CI job
  --json                  print one JSON line with url, partnerId, partnerSecret and the seeded ids
`,
};
