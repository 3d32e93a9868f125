import { jsonLine, lineFormat, stderrLine } from './stderr-log.js';

// The line a part writes when it falls back to a memory store (a surprise in a fleet): once per part per
// process, at first use, never at import or construction, which a framework's build does unused.

/** The parts that default to a memory store, and what the partner passes instead. */
const NOTICES = {
  tracker:
    'checkout-partner-sdk tracker notice memory-store: no store given, so watched records live in this process only: ' +
    'with several replicas each one reads every record on its own, and every watch is lost on restart. ' +
    'Pass store: new RedisStatusStore(...) or new PostgresStatusStore(...) (or logger: false to silence this).',
  webhook:
    'checkout-partner-sdk webhook notice memory-store: no store given, so deliveries are deduplicated in this process only: ' +
    'with several replicas a redelivery reaching another one runs again, and every claim is lost on restart. ' +
    'Pass store: new RedisEventStore(...) or new PostgresEventStore(...) (or logger: false to silence this).',
} as const;

const said = new Set<keyof typeof NOTICES>();

/** Says once that `part` keeps its store in memory, unless the partner passed a store or a logger (then they chose). */
export function noticeMemoryDefault(part: keyof typeof NOTICES, options: { store?: unknown; logger?: unknown }): void {
  if (options.store !== undefined || options.logger !== undefined || said.has(part)) return;
  said.add(part);
  const message = NOTICES[part];
  // CHECKOUT_LOG_FORMAT=json: one JSON object, as the part's other default lines
  stderrLine(lineFormat() === 'json' ? jsonLine('warn', { event: `${part}.notice`, notice: 'memory-store', message }) : message);
}
