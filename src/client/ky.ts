import type * as Ky from 'ky';

let loaded: typeof Ky | undefined;
let loading: Promise<typeof Ky> | undefined;

/**
 * ky, imported on the first request rather than with the SDK. At import ky probes fetch support
 * (`new Request(...)`), which makes Node load its whole fetch implementation: about half of the
 * SDK's cold start, paid by every process that imports the SDK (a CLI printing its help, a worker
 * that only verifies webhooks) though only the first request needs it, and that request loads it anyway.
 */
export function loadKy(): typeof Ky | Promise<typeof Ky> {
  return loaded ?? (loading ??= import('ky').then((module) => (loaded = module)));
}

/** The ky module once a request has loaded it: error mapping and retry decisions run only after one. */
export function kyLoaded(): typeof Ky {
  if (loaded === undefined) throw new TypeError('ky is used before the first request loaded it');
  return loaded;
}
