import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A node:http server on 127.0.0.1 that counts its requests and open sockets. */
export interface RealServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Requests received, as `METHOD /path`. */
  readonly requests: string[];
  /** Sockets currently open. */
  openSockets(): number;
  /** Resolves once no socket is open (or after `ms`), with the number still open. */
  socketsClosed(ms: number): Promise<number>;
  /** Resolves once every response that did not finish has had its connection closed (or after `ms`), with the number still open. */
  unfinishedClosed(ms: number): Promise<number>;
  close(): Promise<void>;
}

export const TOKEN_BODY = JSON.stringify({ accessToken: 'tok-1', tokenType: 'Bearer', expiresIn: 3600 });

/** A server answering POST /auth/token with `tok-1` unless `handler` handles it (returns true). */
export async function startServer(handler: (req: IncomingMessage, res: ServerResponse) => boolean | undefined): Promise<RealServer> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const unfinished = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    unfinished.add(req.socket);
    res.once('finish', () => unfinished.delete(req.socket));
    if (handler(req, res) === true) return;
    if (req.url?.endsWith('/auth/token')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(TOKEN_BODY);
      return;
    }
    res.writeHead(404);
    res.end();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    // one listener per socket, not per request: a keep-alive socket serves many requests
    socket.on('close', () => {
      sockets.delete(socket);
      unfinished.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    openSockets: () => sockets.size,
    async socketsClosed(ms) {
      const deadline = Date.now() + ms;
      while (sockets.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      return sockets.size;
    },
    async unfinishedClosed(ms) {
      const deadline = Date.now() + ms;
      while (unfinished.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      return unfinished.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Writes `chunk` until `totalBytes` are sent (or forever when `Infinity`), honouring backpressure; stops when the client goes. */
export function stream(res: ServerResponse, chunk: Buffer, totalBytes: number): void {
  let sent = 0;
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  const pump = () => {
    while (!closed && sent < totalBytes) {
      sent += chunk.byteLength;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!closed) res.end();
  };
  pump();
}
