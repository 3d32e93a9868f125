import type { LogEntry } from '../index.js';
import { logWriter } from '../client/log.js';
import { escapeText } from './escape.js';
import { countOf } from '../internal/count.js';

type ClientLogEntry = Extract<LogEntry, { event: `client.${string}` }>;

/**
 * The HTTP attempts one command made, for its failure message. Counted through the client's
 * `logger`, because an error's own `attempts` leaves out the token exchange it waited on.
 */
export class AttemptTally {
  #count = 0;
  /** `CHECKOUT_LOG=debug`'s line writer, which a `logger` of our own would otherwise silence. */
  readonly #debug = logWriter(undefined);

  /** HTTP attempts made so far (token exchanges included), each counted when it ended. */
  get count(): number {
    return this.#count;
  }

  /** Counts one attempt (of a webhook delivery, which has no client). */
  add(): void {
    this.#count += 1;
  }

  /** The client's `logger` option: counts each ended attempt, and keeps CHECKOUT_LOG=debug working. */
  readonly logger = (entry: ClientLogEntry): void => {
    if (entry.event === 'client.attempt') this.#count += 1;
    // the request id is the service's header: escaped like any of its text before it reaches stderr
    this.#debug?.({
      ...entry,
      path: escapeText(entry.path),
      requestId: entry.requestId === undefined ? undefined : escapeText(entry.requestId),
    });
  };

  /** `3 HTTP attempts`, for messages. */
  describe(): string {
    return countOf(this.#count, 'HTTP attempt');
  }
}
