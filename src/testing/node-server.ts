import { quote } from '../internal/quote.js';
/**
 * The fake served over real HTTP. node:http is imported inside `serveOnNodeHttp` only, so the
 * testing entry stays loadable where there is no node:http (Cloudflare Workers, browsers).
 */

/**
 * Options of `fake.listen()`.
 *
 * @inline
 */
export interface ListenOptions {
  /**
   * The port; `0` picks a free one.
   * @default 0
   */
  port?: number | undefined;
  /**
   * The address to bind. Keep it on loopback: the fake is for tests and local sandboxes.
   * @default '127.0.0.1'
   */
  host?: string | undefined;
  /**
   * The largest request body accepted, in bytes (larger: 413).
   * @default 1_048_576
   */
  maxBodyBytes?: number | undefined;
}

/** A running fake server. */
export interface FakeServer {
  /** The origin to pass as the client's `baseUrl`, e.g. `http://127.0.0.1:54321`. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** The address it is bound to. */
  readonly host: string;
  /** Stops listening, ends every open (keep-alive) connection, and resolves once closed. Safe to call twice. */
  close(): Promise<void>;
}

/** The marker the fake's handler returns to drop a connection. */
type Outcome = Response | symbol;

/** Serves `respond` with node:http; see {@link ListenOptions}. */
export async function serveOnNodeHttp(
  respond: (request: Request) => Promise<Outcome>,
  options: ListenOptions = {},
): Promise<FakeServer> {
  if (options === null || typeof options !== 'object') throw new TypeError('listen: options must be an object');
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError(`listen: port must be a whole number from 0 to 65535, got ${quote(port)}`);
  }
  const host = options.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host === '') throw new TypeError('listen: host must be a non-empty string');
  const maxBodyBytes = options.maxBodyBytes ?? 1_048_576;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 0) {
    throw new TypeError(`listen: maxBodyBytes must be a whole number of at least 0, got ${quote(maxBodyBytes)}`);
  }

  const http = await import('node:http');
  let origin = '';
  const server = http.createServer((req, res) => {
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    void (async () => {
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of req as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        if (size > maxBodyBytes) {
          res.writeHead(413, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
          res.end(JSON.stringify({ error: 'payload_too_large', message: `The body exceeds ${maxBodyBytes} bytes` }));
          return;
        }
        chunks.push(chunk);
      }
      const headers = new Headers();
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
      const method = req.method ?? 'GET';
      const hasBody = size > 0 && method !== 'GET' && method !== 'HEAD';
      const request = new Request(new URL(req.url ?? '/', origin), {
        method,
        headers,
        signal: abort.signal,
        ...(hasBody ? { body: concat(chunks, size) } : {}),
      });
      const outcome = await respond(request);
      if (!(outcome instanceof Response)) {
        req.socket.destroy(); // an injected 'network' fault: no response at all
        return;
      }
      const body = new Uint8Array(await outcome.arrayBuffer());
      const outHeaders: [string, string][] = [];
      outcome.headers.forEach((value, name) => outHeaders.push([name, value]));
      res.writeHead(outcome.status, outHeaders);
      res.end(method === 'HEAD' ? undefined : body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ error: 'internal', message: 'The fake checkout server failed' }));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address !== null ? address.port : port;
  origin = `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;

  let closing: Promise<void> | undefined;
  return {
    url: origin,
    port: boundPort,
    host,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function concat(chunks: Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
