import { quote } from '../internal/quote.js';
// node:http is imported inside serveOnNodeHttp only, so the testing entry loads where there is none (Workers, browsers).

/** Options of `fake.listen()`. */
export interface ListenOptions {
  /** The port; `0` picks a free one. @default 0 */
  port?: number | undefined;
  /** The address to bind; keep it on loopback. @default '127.0.0.1' */
  host?: string | undefined;
  /** The largest request body accepted, in bytes (larger: 413). @default 1_048_576 */
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

type Outcome = Response | symbol;

export async function serveOnNodeHttp(respond: (request: Request) => Promise<Outcome>, options: ListenOptions = {}): Promise<FakeServer> {
  const { port, host, maxBodyBytes } = listenOptions(options);
  const http = await import('node:http');
  let origin = '';
  const server = http.createServer((req, res) => serveOne(req, res, { respond, origin, maxBodyBytes }));
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

function listenOptions(options: ListenOptions): { port: number; host: string; maxBodyBytes: number } {
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
  return { port, host, maxBodyBytes };
}

// node:http's request and response as far as they are used: importing even its types would tie the entry to Node
interface NodeRequest extends AsyncIterable<Uint8Array> {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly rawHeaders: string[];
  readonly socket: { destroy(): void };
}
interface NodeResponse {
  readonly writableFinished: boolean;
  readonly headersSent: boolean;
  on(event: 'close', listener: () => void): unknown;
  writeHead(status: number, headers: Record<string, string> | [string, string][]): unknown;
  end(body?: string | Uint8Array): unknown;
}

interface Serving {
  respond: (request: Request) => Promise<Outcome>;
  origin: string;
  maxBodyBytes: number;
}

function serveOne(req: NodeRequest, res: NodeResponse, serving: Serving): void {
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  void (async () => {
    const body = await readBody(req, res, serving.maxBodyBytes);
    if (body === undefined) return;
    const method = req.method ?? 'GET';
    const outcome = await serving.respond(toRequest(req, method, body, serving.origin, abort.signal));
    if (!(outcome instanceof Response)) {
      req.socket.destroy(); // an injected 'network' fault: no response at all
      return;
    }
    await writeResponse(res, outcome, method);
  })().catch(() => {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ error: 'internal', message: 'The fake checkout server failed' }));
  });
}

/** The body, or `undefined` once a 413 is answered (before the read stops, which ends the request stream). */
async function readBody(req: NodeRequest, res: NodeResponse, maxBodyBytes: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.byteLength;
    if (size > maxBodyBytes) {
      res.writeHead(413, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      res.end(JSON.stringify({ error: 'payload_too_large', message: `The body exceeds ${maxBodyBytes} bytes` }));
      return undefined;
    }
    chunks.push(chunk);
  }
  return concat(chunks, size);
}

function toRequest(req: NodeRequest, method: string, body: Uint8Array<ArrayBuffer>, origin: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const hasBody = body.byteLength > 0 && method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', origin), { method, headers, signal, ...(hasBody ? { body } : {}) });
}

async function writeResponse(res: NodeResponse, outcome: Response, method: string): Promise<void> {
  const body = new Uint8Array(await outcome.arrayBuffer());
  const outHeaders: [string, string][] = [];
  outcome.headers.forEach((value, name) => outHeaders.push([name, value]));
  res.writeHead(outcome.status, outHeaders);
  res.end(method === 'HEAD' ? undefined : body);
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
