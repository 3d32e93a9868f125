import { typeName } from '../internal/type-name.js';
import type { WebhookEvent } from './event.js';

/**
 * The value of the first `key:value` tag of `event` with this `key` (the text after the first
 * colon), or `undefined` when the event has no such tag (or no `tags` array). The spec correlates
 * a `pix.deposit.*` event with its order by the tag `user:{orderId}`.
 *
 * @example
 * // event.tags: ['channel:app', 'user:order-1042']
 * tagValue(event, 'user'); // 'order-1042'
 * tagValue(event, 'campaign'); // undefined
 */
export function tagValue(event: WebhookEvent, key: string): string | undefined {
  if (event === null || typeof event !== 'object') throw new TypeError(`tagValue takes a webhook event, got ${typeName(event)}`);
  if (typeof key !== 'string' || key === '') throw new TypeError(`tagValue key must be a non-empty string, got ${typeName(key)}`);
  const tags: unknown = event.tags;
  if (!Array.isArray(tags)) return undefined;
  const prefix = `${key}:`;
  for (const tag of tags) {
    if (typeof tag === 'string' && tag.startsWith(prefix)) return tag.slice(prefix.length);
  }
  return undefined;
}
