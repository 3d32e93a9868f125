// inlined at build time: the tarball reports its own version
import { version } from '../../package.json';

/** `checkout-partner-sdk/<version> <runtime>/<version>`, sent as `User-Agent` with every request. */
export const USER_AGENT = `checkout-partner-sdk/${version} ${runtime()}`;

/** `node/24.21.0`, `bun/1.4.5`, `deno/2.9.6`, `workerd` or `unknown`. */
function runtime(): string {
  const g = globalThis as {
    Bun?: { version?: unknown };
    Deno?: { version?: { deno?: unknown } };
    process?: { versions?: { node?: unknown } };
    navigator?: { userAgent?: unknown };
  };
  if (typeof g.Bun?.version === 'string') return `bun/${g.Bun.version}`;
  if (typeof g.Deno?.version?.deno === 'string') return `deno/${g.Deno.version.deno}`;
  if (g.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd';
  if (typeof g.process?.versions?.node === 'string') return `node/${g.process.versions.node}`;
  return 'unknown';
}
