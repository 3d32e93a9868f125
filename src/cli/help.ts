/** The help texts, one per command; `--help` prints them on stdout. */

const CREDENTIALS = `Credentials (flags override the environment; prefer the environment for the secret):
  --base-url <url>          CHECKOUT_BASE_URL        the service origin, e.g. https://checkout.example.com
  --partner-id <id>         CHECKOUT_PARTNER_ID      the partner's client id
  --partner-secret <s>      CHECKOUT_PARTNER_SECRET  the partner's client secret (never printed)
  --allow-insecure-http     allow a plain http:// base URL off loopback (the secret and token
                            then cross the network in clear text; localhost needs no flag)

Debugging: CHECKOUT_LOG=debug prints one line per HTTP attempt, retry and token exchange on stderr
(method, path, status, ms, request id; never a secret or token).`;

const EXIT_CODES = `Exit codes:
  0 ok   1 API or network error   2 usage error   3 missing credentials or authentication failed
  4 not found   5 --wait-until timed out   6 webhook signature invalid`;

export const HELP = {
  global: `Usage: checkout-partner <command> [options]

Commands:
  me                         check the credentials (GET /auth/me)
  order <externalId>         read an order's status; --wait-until to poll for a status
  withdrawal <externalId>    read a PIX withdrawal's status; --wait-until to poll for a status
  watch <externalId>...      print each status change of orders (or --withdrawal) as it happens
  token                      mint an access token and show its expiry (--show prints the token)
  webhook sign               sign a webhook body as the payment provider does
  webhook verify             check a webhook body against its signature
  sandbox                    run a fake checkout service on 127.0.0.1 with demo data

Options:
  --json                     machine-readable output on stdout
  -h, --help                 help (also after a command: checkout-partner order --help)
  -v, --version              the version

${CREDENTIALS}

${EXIT_CODES}
`,
  me: `Usage: checkout-partner me [--json]

Exchanges the credentials for a token and calls GET /auth/me: success means the credentials are
valid and the partner API is enabled for the partner.

${CREDENTIALS}
`,
  order: `Usage: checkout-partner order <externalId> [--wait-until <status>] [--timeout <seconds>] [--interval <seconds>] [--json]

Reads GET /orders/by-external-id/{externalId}.

  --wait-until <status>   poll until settlement.status (or a top-level status) equals <status>, e.g. Settled
  --timeout <seconds>     how long to wait (default 60); exit code 5 when it runs out
  --interval <seconds>    time between two reads (default 2)
  --json                  print the order as JSON

${CREDENTIALS}
`,
  withdrawal: `Usage: checkout-partner withdrawal <externalId> [--wait-until <status>] [--timeout <seconds>] [--interval <seconds>] [--json]

Reads GET /withdrawals/by-external-id/{externalId}.

  --wait-until <status>   poll until status equals <status>, e.g. Completed
  --timeout <seconds>     how long to wait (default 60); exit code 5 when it runs out
  --interval <seconds>    time between two reads (default 2)
  --json                  print the withdrawal as JSON

${CREDENTIALS}
`,
  watch: `Usage: checkout-partner watch <externalId>... [--withdrawal] [--interval <seconds>] [--timeout <seconds>] [--json]

Watches orders (or withdrawals, with --withdrawal) with the SDK's status tracker and prints each
status change as it happens, one line each ("order order-42: Pending -> Settled"), until every
record reached a final status (exit 0: Settled or cancelled; Completed, failed or cancelled), until
--timeout runs out (exit 5), or until Ctrl-C (exit 0). A record not created yet is watched on.

  --withdrawal            the ids are withdrawals (default: orders)
  --interval <seconds>    time between two reads of a record (default 2)
  --timeout <seconds>     give up after this long (default: no limit)
  --json                  one JSON line per change: kind, externalId, status, previousStatus, source, record

${CREDENTIALS}
`,
  token: `Usage: checkout-partner token [--show] [--json]

Mints an access token through POST /auth/token and shows when it expires. The token itself is
printed only with --show (alone on stdout, so TOKEN=$(checkout-partner token --show) works).

${CREDENTIALS}
`,
  webhook: `Usage: checkout-partner webhook sign|verify [options]

  webhook sign   [--file <path>] [--secret <s>]                    print the signature header value
  webhook verify [--file <path>] [--secret <s>] --signature <sig>   exit 0 when valid, 6 when not

The body is read from --file, else from stdin, byte for byte. The signing secret comes from --secret
or CHECKOUT_WEBHOOK_SECRET (prefer the environment); it is never printed. The signature is the
X-Provider-Signature value: sha256=<hex> or bare hex.
`,
  sandbox: `Usage: checkout-partner sandbox [--port <port>] [--json]

Runs the fake checkout service of checkout-partner-sdk/testing on 127.0.0.1, seeds a demo partner,
orders and withdrawals (some settle after a few reads), and prints the base URL and the credentials
to export. Runs until Ctrl-C (SIGINT) or SIGTERM.

  --port <port>   the port (default: a free one)
  --json          print one JSON line with url, partnerId, partnerSecret and the seeded ids
`,
} as const;

export type HelpTopic = keyof typeof HELP;
