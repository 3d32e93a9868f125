// Set-ups the framework tests share: a handler whose onEvent and log are watched, servers closed
// after each test, and a signed POST through fetch.
import { createWebhookHandler, signPayload, type WebhookHandlerOptions } from 'checkout-partner-sdk/webhooks';
import { afterEach, vi } from 'vitest';
import { makeClient, memoryLogger, SECRET } from '../helpers.js';

/** A handler on the msw checkout service whose `onEvent` is a spy and whose log entries are kept. */
export function watchedHandler(overrides: Partial<WebhookHandlerOptions> = {}) {
  const onEvent = vi.fn();
  const { entries, logger } = memoryLogger();
  const handler = createWebhookHandler({ secret: SECRET, client: makeClient(), onEvent, logger, ...overrides });
  return { handler, onEvent, entries };
}

/** Registers an afterEach that runs every close function handed to the returned `closeLater`. */
export function closeAfterEach(): (close: () => Promise<unknown>) => void {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });
  return (close) => void closers.push(close);
}

/** POSTs `body` to `url`, signed with SECRET unless `signature` is given, and reads the answer. */
export async function postSigned(url: string, body: string, options: { signature?: string; contentType?: string } = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': options.contentType ?? 'application/json',
      'x-provider-signature': options.signature ?? (await signPayload(body, SECRET)),
    },
    body,
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}
