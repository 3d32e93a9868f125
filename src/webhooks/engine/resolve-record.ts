import { eventRecordId, eventTypeOf } from '../../event-types.js';
import { untilAborted } from '../../internal/abort.js';
import { typeName } from '../../internal/type-name.js';
import { RECORD_KINDS, type StatusKind } from '../../kinds.js';
import type { WebhookEvent } from '../event.js';
import type { ResolvedOptions } from './resolve-options.js';

export type ResolveConfig = Pick<ResolvedOptions, 'tracker' | 'resolvers'>;

/**
 * The record an event is about: its kind from the event types table, its externalId from the partner's resolver,
 * else the event itself, else the tracker's lookup. Rejects when `signal` aborts, as partner code or a store can hang.
 */
export async function resolveRecord(
  config: ResolveConfig,
  event: WebhookEvent,
  signal: AbortSignal,
): Promise<{ kind: StatusKind; externalId: string | undefined } | undefined> {
  const entry = eventTypeOf(event.type);
  if (entry === undefined) return undefined;
  const { kind } = entry;
  const resolver = config.resolvers[kind];
  if (resolver !== undefined) {
    signal.throwIfAborted();
    const id: unknown = await untilAborted(Promise.resolve(resolver(event)), signal);
    if (typeof id === 'string' && id !== '') return { kind, externalId: id };
    if (id !== undefined && id !== null && id !== '')
      throw new TypeError(
        `the ${kind} resolver (${RECORD_KINDS[kind].resolver}) must return a string, null or undefined, got ${typeName(id)}`,
      );
  }
  const carried = eventRecordId(event);
  if (carried !== undefined) return { kind, externalId: carried };
  const recordFor = config.tracker?.recordFor?.bind(config.tracker);
  if (recordFor === undefined) return { kind, externalId: undefined };
  signal.throwIfAborted();
  const found = await untilAborted(recordFor(event), signal);
  return { kind, externalId: found?.kind === kind ? found.externalId : undefined };
}
