#!/usr/bin/env node
// The docs' performance figures, from one place: bench/results.json (the last full `npm run bench`).
// Each figure sits in a marked block of a doc, `<!-- bench:NAME -->…<!-- /bench -->`, whose text is
// rendered here from the results; nothing between the markers is written by hand.
//   node scripts/bench-docs.mjs           rewrites the blocks (after `npm run bench`)
//   node scripts/bench-docs.mjs --check   fails when a block disagrees with bench/results.json (CI)
// A part the recorded run did not measure renders as such, never as an old figure.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { READ_VS_KY_GOAL, THROUGHPUT_VS_KY_GOAL } from '../bench/lib/table.mjs';
import { READ_GOAL_KB } from './entry-size.mjs';

const root = join(import.meta.dirname, '..');
/** The docs that hold bench blocks. */
export const DOCS = ['docs/performance.md', 'docs/load-control.md'];
const BLOCK = /<!-- bench:([a-z-]+) -->[\s\S]*?<!-- \/bench -->/g;

const fixed = (value, digits) => Number(value).toFixed(digits);
const int = (value) => Math.round(value).toLocaleString('en');
const kb = (bytes) => `${fixed(bytes / 1024, 1)} KB`;
const ms = (value) => `${fixed(value, 0)} ms`;
const notMeasured = (part) => `(not measured by the recorded run: \`npm run bench -- --only=${part}\` measures it)`;

/** Each block's text from the results; `undefined` results of a part render as not measured. */
const BLOCKS = {
  machine: (bench) => {
    const m = bench.machine;
    return `${m.cores} cores (${m.cpuModel}), Node ${m.node.replace(/^v/, '')}, ${m.platform}, run on ${m.date.slice(0, 10)}`;
  },
  reads: ({ results: { reads } }) => {
    if (reads === undefined || reads.error) return notMeasured('reads');
    const { sequential: seq, concurrent64: c64 } = reads;
    const ky = seq['ky alone'] && c64['ky alone'];
    return (
      `a status read costs ${fixed(seq.sdk.cpuVsRawFetch, 2)}x the client CPU of a bare \`fetch\` + \`res.json()\` ` +
      `one at a time (${fixed(seq.sdk.cpuUsPerRequest, 0)} against ${fixed(seq['raw fetch'].cpuUsPerRequest, 0)} µs) and ` +
      `${fixed(c64.sdk.cpuVsRawFetch, 2)}x with 64 at once` +
      (ky ? `, ${fixed(seq.sdk.cpuVsKy, 2)}x and ${fixed(c64.sdk.cpuVsKy, 2)}x that of ky alone sending the same request` : '') +
      ` (goals: at most ${fixed(READ_VS_KY_GOAL, 2)}x ky's CPU, at least ${fixed(THROUGHPUT_VS_KY_GOAL, 2)}x its requests per second with 64 in flight)` +
      `; openai's \`models.retrieve()\` costs ${fixed(seq.openai.cpuUsPerRequest, 0)} µs, stripe's ` +
      `${fixed(seq.stripe.cpuUsPerRequest, 0)} µs one at a time`
    );
  },
  overhead: ({ results: { overhead } }) => {
    if (overhead === undefined || overhead.error) return notMeasured('overhead');
    const sdk = overhead['sdk getOrderByExternalId'];
    const ky = overhead['ky (SDK options)'];
    const zod = overhead['zod OrderSchema.parse alone'];
    return (
      `without I/O (a \`fetch\` that returns a fixed \`Response\`), a read takes ${fixed(sdk.cpuUsPerCall, 1)} µs of CPU ` +
      `against ${fixed(ky.cpuUsPerCall, 1)} µs for ky with the SDK's options and ` +
      `${fixed(overhead['fetch + JSON.parse'].cpuUsPerCall, 1)} µs for \`fetch\` + \`JSON.parse\`; parsing the order ` +
      `with zod is ${fixed(zod.cpuUsPerCall, 1)} µs of it`
    );
  },
  telemetry: ({ results: { telemetry } }) => {
    if (telemetry === undefined || telemetry.error) return notMeasured('telemetry');
    const off = telemetry['no provider registered'];
    const on = telemetry['SDK tracer + meter providers'];
    return (
      `OpenTelemetry: with \`@opentelemetry/api\` installed and no provider registered a read takes ` +
      `${fixed(off.cpuUsPerCall, 1)} µs of CPU without I/O; with the JS SDK's tracer and meter providers (its CLIENT ` +
      `span and histogram point) ${fixed(on.cpuUsPerCall, 1)} µs (\`bench/parts/telemetry.mjs\`)`
    );
  },
  tokens: ({ results: { tokens } }) => {
    if (tokens === undefined || tokens.error) return notMeasured('tokens');
    const renewed = tokens.lifetimes.clients.every((c) => c.withinOne);
    return (
      `${int(tokens.cold.callers)} concurrent \`getAccessToken()\` calls make ${tokens.cold.exchanges} token ` +
      `exchange${tokens.cold.exchanges === 1 ? '' : 's'} (${ms(tokens.cold.ms)}), and over ${fixed(tokens.lifetimes.seconds, 0)} s ` +
      `of reads with ${tokens.lifetimes.tokenLifetimeSeconds} s tokens ` +
      (renewed ? 'each client renewed its token once per lifetime (within one exchange)' : 'a client did NOT renew once per lifetime')
    );
  },
  webhooks: ({ results: { webhooks } }) => {
    if (webhooks === undefined || webhooks.error) return notMeasured('webhooks');
    const v = webhooks.verification;
    const deliveries = Object.entries(webhooks.deliveries)
      .map(
        ([name, d]) =>
          `${int(d.sequentialPerSecond)}/s one at a time and ${int(d.concurrent16PerSecond)}/s 16 at once with ${name.replace(/^handle\(\), /, '`').replace(/( \(|$)/, '`$1')}`,
      )
      .join(', ');
    return (
      `\`verifySignature\` (${webhooks.payloadBytes} bytes) on Node runs at ${fixed(v.verifySignature.vsLimit, 2)}x bare node:crypto ` +
      `\`createHmac\` + \`timingSafeEqual\`, ${fixed(v.verifySignature.opsPerSecond / v.standardwebhooks.opsPerSecond, 1)}x the ` +
      `\`standardwebhooks\` package; deliveries through \`handle(Request)\`, each confirmed by a status read: ${deliveries}`
    );
  },
  memory: ({ results: { memory } }) => {
    if (memory === undefined || memory.error) return notMeasured('memory');
    const f = memory.flat;
    return (
      `\`MemoryEventStore\` holds ${int(memory.entries)} events in about ${fixed(memory.bytesPerEntry, 0)} bytes each, ` +
      (f.completed && f.flat
        ? `with a flat heap over ${int(f.events)} (${fixed(f.growthPercent, 2)}% growth)`
        : `and its heap was NOT flat over ${int(f.events)} events`)
    );
  },
  outage: ({ results: { outage } }) => {
    if (outage === undefined || outage.error) return notMeasured('outage');
    const { budgetOn, budgetOff } = outage.outage;
    const { bounded, unbounded } = outage.silent;
    return (
      `during a 503 outage, ${budgetOn.callers} callers send ${fixed(budgetOn.requestsPerCallInOutage, 2)} request per call ` +
      `once the retry budget is dry (${fixed(budgetOff.requestsPerCallInOutage, 2)} with \`retryBudget: false\`), and a ` +
      `service that never answers holds at most ${bounded.maxOpenSockets} sockets of a client at ${bounded.ratePerSecond} ` +
      `calls/s (${unbounded.maxOpenSockets} with the bound lifted)`
    );
  },
  'queue-heap': ({ results: { outage } }) => {
    if (outage?.queue === undefined || outage.error) return `The heap a waiting call costs is ${notMeasured('outage')}`;
    const h = outage.queue.heap;
    return (
      `A waiting call costs ${fixed(h.heapPerWaiterBytes / 1024, 1)} KB of heap (measured with ${int(h.waiters)} waiting, ` +
      `\`npm run bench\`), so a full default queue holds about ${fixed((h.heapPerWaiterBytes * 10_000) / 1024 / 1024, 0)} MB`
    );
  },
  size: ({ results: { size } }) => {
    if (size === undefined || size.error) return notMeasured('size');
    const s = size.sizes;
    const read =
      size.read === undefined
        ? `what one read ships is ${notMeasured('size')}`
        : `an app that makes one read ships ${kb(size.read.gzipBytes)} gzip, ky, jose and zod included`;
    return (
      `${read}; the goal is at most ${READ_GOAL_KB} KB, counting every chunk esbuild splits the app into but the telemetry ones, each gzipped; ` +
      `in one file, as a Worker deploys it, an app importing \`CheckoutClient\` (its telemetry and \`@opentelemetry/api\` in) is ${kb(s.CheckoutClient.gzipBytes)} gzip ` +
      `(openai ${kb(s.openai.gzipBytes)}, stripe ${kb(s.stripe.gzipBytes)}), one importing \`createWebhookHandler\` ` +
      `${kb(s.createWebhookHandler.gzipBytes)}`
    );
  },
  startup: ({ results: { size } }) => {
    if (size === undefined || size.error) return notMeasured('size');
    const st = size.startup;
    const over = (name) => `+${ms(st[name].overEmptyMs)}`;
    return (
      `a cold \`import('checkout-partner-sdk')\` costs ${over('checkout-partner-sdk')} over an empty script ` +
      `(\`/webhooks\`: ${over('checkout-partner-sdk/webhooks')}), against ${over('openai')} for openai and ` +
      `${over('stripe')} for stripe (medians of ${size.startupRuns} interleaved runs)` +
      (st['zod/mini + jose/jwt/decode + ky'] === undefined
        ? ''
        : `; what it loads of its dependencies at import, \`zod/mini\`, \`jose/jwt/decode\` and ky, costs ${over('zod/mini + jose/jwt/decode + ky')} alone`)
    );
  },
};

// the schedule's simulation (bench/parts/tracker-schedule.mjs), added to BLOCKS below
BLOCKS.schedule = ({ results: { schedule } }) => {
  if (schedule === undefined || schedule.error) return notMeasured('schedule');
  const { flowing, none, outage } = schedule;
  const l = flowing.lateSeconds;
  const per = flowing.readsPerRecord;
  const wrong = [flowing, none, outage].reduce((n, s) => n + s.lost + s.doubled, 0);
  return (
    `${schedule.orders} orders and ${schedule.withdrawals} withdrawals over ${schedule.simulatedMinutes} simulated minutes: ` +
    `${fixed(flowing.readsPerChange, 1)} reads of the service per status change with webhooks flowing (${fixed(none.readsPerChange, 1)} ` +
    `without any), a crypto order ${per.crypto} reads, a BRZ order ${per.brz}, an abandoned checkout ${per.abandoned}, a ` +
    `withdrawal ${per.withdrawal}; lateness p99: ${fixed(l.unannouncedOpenP99, 1)} s for an unannounced change while the checkout ` +
    `is open, ${fixed(l.afterWebhookP99, 2)} s after a delivered webhook, ${fixed(l.lostWebhookP99, 0)} s when the webhook is lost, ` +
    `${fixed(l.abandonedP99, 0)} s for an abandoned checkout; without webhooks an announced change's p50 is ` +
    `${fixed(none.lateSeconds.announcedP50, 1)} s; after a 30 s outage the changes made meanwhile arrive within ` +
    `${fixed(outage.lateSeconds.afterRecoveryP99, 1)} s (p99) and nothing is overdue 30 s later ` +
    `(${fixed(outage.oldestOverdueSeconds30sAfterRecovery, 0)} s); ${wrong === 0 ? 'nothing lost or doubled' : `${wrong} records lost or doubled a change`}`
  );
};

// the tracker's own cost on PostgreSQL against pg-boss (bench/parts/tracker-vs-pgboss.mjs)
BLOCKS.pgboss = ({ results: { pgboss } }) => {
  if (pgboss === undefined || pgboss.error || pgboss.skipped) return notMeasured('pgboss');
  const { tracker } = pgboss.variants;
  const boss = pgboss.variants['pg-boss'];
  const v = pgboss.vsPgboss;
  return (
    `a turn of the status tracker that reads a record and finds nothing new costs ${fixed(tracker.workerUs, 0)} µs of the ` +
    `worker's CPU and ${fixed(tracker.databaseUs, 0)} µs of PostgreSQL's (transactional \`PostgresStatusStore\`), against ` +
    `${fixed(boss.workerUs, 0)} and ${fixed(boss.databaseUs, 0)} µs for a pg-boss ${pgboss.pgbossVersion} job fetched, completed and ` +
    `sent again by the same loop: ${fixed(v.both, 2)}x pg-boss's CPU (worker alone ${fixed(v.worker, 2)}x; ` +
    `${fixed(pgboss.vsPgbossEachJobAlone.both, 2)}x pg-boss settling each job in statements of its own)`
  );
};

/** A doc's text with every bench block rendered from `bench`; throws on a block with no renderer. */
export function render(text, bench, file = 'a doc') {
  return text.replace(BLOCK, (_block, name) => {
    const block = BLOCKS[name];
    if (block === undefined) throw new Error(`${file}: unknown bench block "${name}" (known: ${Object.keys(BLOCKS).join(', ')})`);
    return `<!-- bench:${name} -->${block(bench)}<!-- /bench -->`;
  });
}

/** The recorded results. */
export function readResults() {
  return JSON.parse(readFileSync(join(root, 'bench', 'results.json'), 'utf8'));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const check = process.argv.includes('--check');
  const bench = readResults();
  const stale = [];
  for (const file of DOCS) {
    const path = join(root, file);
    const text = readFileSync(path, 'utf8');
    const rendered = render(text, bench, file);
    if (!text.includes('<!-- bench:')) stale.push(`${file} has no bench block`);
    if (rendered === text) continue;
    if (check) stale.push(`${file}: a figure disagrees with bench/results.json`);
    else writeFileSync(path, rendered);
  }
  if (stale.length > 0) {
    console.error(`bench-docs: FAIL:\n  ${stale.join('\n  ')}\nRun \`node scripts/bench-docs.mjs\` to write them from bench/results.json.`);
    process.exit(1);
  }
  console.log(check ? 'bench-docs: every figure agrees with bench/results.json' : 'bench-docs: docs written from bench/results.json');
}
