/**
 * Which injected fault explains a failure the client surfaced. A failure no fault explains (an
 * untyped error, a typed error of the wrong kind, a status the server never sent) is a finding.
 */
import type { FaultReport, Outcome } from './fault-server.js';
import type { CallRecord } from './load.js';

/** A short reason when the faults served explain `call`'s outcome, else `undefined`. */
export function explain(call: CallRecord, report: FaultReport, maxAttempts: number): string | undefined {
  if (call.ok) return call.matched ? 'ok' : undefined;
  const error = call.error;
  if (error === undefined) return undefined;
  if (call.aborted && error.isAbortReason) return 'aborted by the caller (rejected with signal.reason)';
  if (!error.checkoutError) return undefined;

  if (error.message.includes('POST /auth/token')) {
    const outcome = outcomeOf(error);
    if (outcome === undefined) return undefined;
    // a failed exchange attempt of that kind while this call was waiting for a token
    const seen = report.exchanges.some((x) => x.outcome === outcome && x.at >= call.start - 50 && x.at <= call.end + 50);
    return seen ? `token exchange failed (${outcome})` : undefined;
  }

  const outcomes = report.calls[call.id] ?? [];
  const last = outcomes.at(-1);
  if (last === undefined || outcomes.includes('ok')) return undefined;
  // one round of attempts, plus one more round after a 401 drops the token
  if (outcomes.length > 2 * maxAttempts) return undefined;
  if (error.name === 'AuthenticationError') {
    return last === '401' && outcomes.filter((o) => o === '401').length >= 2 ? 'second 401 (token revoked twice)' : undefined;
  }
  const expected = outcomeOf(error);
  if (expected === undefined || expected !== last) return undefined;
  const tail = outcomes.slice(outcomes.lastIndexOf('401') + 1);
  // the last round ran out of attempts on faults (a 401 round restarts the count)
  if (tail.length === maxAttempts) return `retries exhausted (last ${last})`;
  // or the client's retry budget refused the next retry: the error then counts what the server saw
  return tail.length < maxAttempts && error.attempts === outcomes.length ? `retry refused by the retry budget (last ${last})` : undefined;
}

/** The server outcome an error stands for. */
function outcomeOf(error: NonNullable<CallRecord['error']>): Outcome | undefined {
  switch (error.name) {
    case 'ServerError':
      return error.status === 500 || error.status === 502 || error.status === 503 ? (String(error.status) as Outcome) : undefined;
    case 'RateLimitError':
      return error.status === 429 ? '429' : undefined;
    case 'ConnectionError':
      return 'reset';
    case 'TimeoutError':
      return 'slow';
    default:
      return undefined;
  }
}
