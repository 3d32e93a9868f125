import * as z from 'zod/mini';
import type { ValidationIssue } from '../errors.js';
import { typeName } from '../internal/type-name.js';
import { quote } from '../internal/quote.js';
import { WebhookPayloadError } from './errors.js';
import { fieldChecks, valueAt, type FieldCheck } from '../event-types.js';

import type { EventOfType, WebhookEvent } from '../webhook-event.js';

export type { WebhookEvent } from '../webhook-event.js';

/** Whether `event` has type `type`, narrowing it to that event's fields. */
export function isEventType<T extends string>(event: WebhookEvent, type: T): event is EventOfType<T> {
  return event.type === type;
}

/** The checks of the fields an event type declares (the event types table's `fields`): absent or `null` always passes. */
const FIELD_CHECKS = {
  string: { valid: (value: unknown) => typeof value === 'string', expected: 'a string' },
  strings: {
    valid: (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string'),
    expected: 'an array of strings',
  },
} as const satisfies Record<FieldCheck, { valid: (value: unknown) => boolean; expected: string }>;

const EventSchema = z
  .looseObject({
    eventId: z.string().check(z.minLength(1, 'eventId must be a non-empty string')),
    type: z.optional(z.string()),
    // the alias counts only when it is a string and `type` is absent; otherwise it is kept as sent
    event: z.optional(z.unknown()),
  })
  .check(
    z.superRefine((value, ctx) => {
      const type = typeOf(value);
      if (type === undefined) {
        ctx.addIssue({ code: 'custom', path: ['type'], message: 'type (or its alias event) must be a string', input: undefined });
        return;
      }
      // a missing field passes (a 400 would be redelivered forever); one that is there must have its declared type
      for (const [path, check] of fieldChecks(type)) {
        const { value: given, blocked } = valueAt(value, path);
        const field = path.join('.');
        if (blocked !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: blocked.split('.'),
            message: `${quote(type)} ${blocked} must be an object when present`,
            input: undefined,
          });
          continue;
        }
        if (given === undefined || given === null || FIELD_CHECKS[check].valid(given)) continue;
        ctx.addIssue({
          code: 'custom',
          path: [...path],
          message: `${quote(type)} ${field} must be ${FIELD_CHECKS[check].expected} or null when present`,
          input: undefined,
        });
      }
    }),
  );

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Parses a webhook body, its signature already verified: a JSON object with a non-empty string `eventId` and a string `type`
 * (or its alias `event`), other fields kept, a known type's fields absent, `null` or of their type; else a {@link WebhookPayloadError}.
 */
export function parseEvent(payload: string | Uint8Array): WebhookEvent {
  let text: string;
  if (typeof payload === 'string') {
    text = payload;
  } else if (payload instanceof Uint8Array) {
    try {
      text = decoder.decode(payload);
    } catch {
      throw invalid('The webhook body is not valid UTF-8', [{ code: 'invalid_utf8', path: [], message: 'Not valid UTF-8' }]);
    }
  } else {
    throw new TypeError(`payload must be a string or a Uint8Array, got ${typeName(payload)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the body, so it is not passed on
    throw invalid('The webhook body is not valid JSON', [{ code: 'invalid_json', path: [], message: 'Not valid JSON' }]);
  }
  const result = EventSchema.safeParse(json);
  if (!result.success) {
    const issues: ValidationIssue[] = result.error.issues.map((issue) => ({
      code: issue.code,
      path: issue.path,
      message: issue.message,
    }));
    const summary = issues
      .slice(0, 3)
      .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message))
      .join('; ');
    throw invalid(`The webhook body is not a valid event: ${summary}`, issues);
  }
  const { data } = result;
  const type = typeOf(data);
  return (data.type === type ? data : { ...data, type }) as WebhookEvent; // validated above
}

function typeOf(value: { type?: string | undefined; event?: unknown }): string | undefined {
  return value.type ?? (typeof value.event === 'string' ? value.event : undefined);
}

function invalid(message: string, issues: ValidationIssue[]): WebhookPayloadError {
  return new WebhookPayloadError(message, issues);
}
