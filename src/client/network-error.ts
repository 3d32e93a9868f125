/** The messages fetch implementations give a failure of the network (ky's list). */
const NETWORK_MESSAGES = new Set([
  'fetch failed', // undici (Node.js)
  'terminated', // undici: the body was cut midway
  'Failed to fetch', // Chrome
  'network error', // Chrome
  'NetworkError when attempting to fetch resource.', // Firefox
  'The Internet connection appears to be offline.', // Safari 16
  'Load failed', // Safari 17+
  'Network request failed', // cross-fetch
  ' A network error occurred.', // Bun
  'Network connection lost', // Cloudflare Workers
]);

/** Whether fetch failed for the network, not for a bad request or a custom fetch's own error. */
export function isNetworkError(error: unknown): error is TypeError {
  if (!(error instanceof Error) || error.name !== 'TypeError') return false;
  const { message } = error;
  return (
    NETWORK_MESSAGES.has(message) ||
    /^(?:Failed to fetch|Load failed) \(.*\)$/.test(message) ||
    message.startsWith('error sending request for url')
  );
}

/** A network error's fixed text and its system error code, never quoting a header. */
export function describeNetworkError(cause: unknown): string {
  if (!(cause instanceof Error)) return 'no response';
  return `${cause.message}${codeOf(cause.cause) ?? codeOf(cause) ?? ''}`;
}

/** ` (ECONNREFUSED)` and the like. */
export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) ? ` (${code})` : undefined;
}
