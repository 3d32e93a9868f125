/**
 * Reads the receivers' append-only log back and checks exactly-once handling: every event handled
 * at least once (none lost), at most once, except an event whose first handling ran in the
 * SIGKILLed receiver just before the kill (its claim was never completed, so a redelivery ran it
 * again after the lease): those may run twice and are counted. Also checks `confirmed`.
 */
import { expectedConfirmed } from './events.js';

export interface KillWindow {
  pid: number;
  /** Epoch ms of the SIGKILL. */
  at: number;
  /** How long before the kill a handling still counts as in flight (its complete() may not have run). */
  inFlightMs: number;
}

export interface LogCheck {
  handledLines: number;
  injectedFailures: number;
  completeFailures: number;
  distinctHandled: number;
  lost: string[];
  twiceAtKill: string[];
  /** Handled twice because the first handling's complete() failed (the store was down). */
  twiceAfterFailedComplete: string[];
  /** Handled more than once with no explanation. */
  unexplained: string[];
  wrongConfirmed: string[];
  unknownIds: string[];
}

interface Line {
  tag: string;
  eventId: string;
  receiver: string;
  pid: number;
  at: number;
  confirmed?: string;
}

export function checkLog(text: string, events: number, kill: KillWindow | undefined): LogCheck {
  const handled = new Map<string, Line[]>();
  const completeFailed = new Set<string>();
  let injectedFailures = 0;
  let handledLines = 0;
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    const [tag = '', eventId = '', receiver = '', pid = '', at = '', confirmed] = raw.split(' ');
    const line: Line = { tag, eventId, receiver, pid: Number(pid), at: Number(at), ...(confirmed === undefined ? {} : { confirmed }) };
    if (tag === 'H') {
      handledLines++;
      const list = handled.get(eventId) ?? [];
      list.push(line);
      handled.set(eventId, list);
    } else if (tag === 'F') injectedFailures++;
    else if (tag === 'C') completeFailed.add(`${eventId} ${pid}`);
    else throw new Error(`unreadable log line: ${JSON.stringify(raw)}`);
  }

  const result: LogCheck = {
    handledLines,
    injectedFailures,
    completeFailures: completeFailed.size,
    distinctHandled: handled.size,
    lost: [],
    twiceAtKill: [],
    twiceAfterFailedComplete: [],
    unexplained: [],
    wrongConfirmed: [],
    unknownIds: [],
  };
  const inFlightAtKill = (line: Line) => {
    if (kill === undefined) return false;
    return line.pid === kill.pid && line.at >= kill.at - kill.inFlightMs && line.at <= kill.at + 100;
  };

  for (let i = 0; i < events; i++) {
    const eventId = `soak-${i}`;
    const lines = handled.get(eventId) ?? [];
    handled.delete(eventId);
    if (lines.length === 0) {
      result.lost.push(eventId);
      continue;
    }
    for (const line of lines) {
      if (line.confirmed !== String(expectedConfirmed(i))) result.wrongConfirmed.push(`${eventId} (${line.confirmed})`);
    }
    if (lines.length === 1) continue;
    const sorted = [...lines].sort((a, b) => a.at - b.at);
    const first = sorted[0] as Line;
    if (lines.length === 2 && inFlightAtKill(first)) result.twiceAtKill.push(eventId);
    else if (lines.length === 2 && completeFailed.has(`${eventId} ${first.pid}`)) result.twiceAfterFailedComplete.push(eventId);
    else result.unexplained.push(`${eventId} ×${lines.length} (${sorted.map((l) => `${l.receiver}/${l.pid}@${l.at}`).join(', ')})`);
  }
  result.unknownIds = [...handled.keys()];
  return result;
}
