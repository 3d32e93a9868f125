import { typeName } from '../internal/type-name.js';
import type { WebhookEvent } from './event.js';

/** The value of `event`'s first `key:value` tag with this `key`, or `undefined`: `user:order-1042` gives `'order-1042'` for `'user'`. */
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
