// "ky alone" in the benches: ky as the SDK configures it for a GET (the same headers, retry,
// timeout, totalTimeout and redirect options: the SDK bounds every call by default, 60 s), with
// nothing of the SDK around it: the transport's own cost.
export const KY_RETRY = {
  limit: 2,
  statusCodes: [408, 429, 500, 502, 503, 504],
  afterStatusCodes: [408, 429, 500, 502, 503, 504],
  maxRetryAfter: 60_000,
  retryOnTimeout: true,
  jitter: true,
};

/** A GET's options, made per call as a caller would; `fetch` only when given. */
export function kyAloneOptions(headers, fetch) {
  const options = { headers, retry: KY_RETRY, timeout: 30_000, totalTimeout: 60_000, redirect: 'manual' };
  if (fetch !== undefined) options.fetch = fetch;
  return options;
}
