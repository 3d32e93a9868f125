import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a local server, that can fail the network the ways a real
 * one does: `blackhole()` stops forwarding in both directions without closing anything (packets
 * dropped, as in a failover: nobody sees a reset), `reset()` destroys every connection (an RST),
 * `restore()` forwards again: new connections work, and the blackholed ones are reset, as a real
 * peer answers RST to a connection it has forgotten once packets flow again.
 */
export interface TcpProxy {
  readonly port: number;
  /** `url` with its port replaced by the proxy's. */
  via(url: string): string;
  /** Stops forwarding; connections stay open and new ones are accepted but get nothing. */
  blackhole(): void;
  /** Forwards again for new connections, and resets the blackholed ones (their peer has forgotten them). */
  restore(): void;
  /** Destroys every open connection at once. */
  reset(): void;
  /** How many connections are open. */
  readonly open: number;
  close(): Promise<void>;
}

/** Starts a {@link TcpProxy} to `127.0.0.1:targetPort`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<{ inbound: Socket; outbound: Socket | undefined; dead: boolean }>();
  let holed = false;
  const server = createServer((inbound) => {
    const pair = { inbound, outbound: undefined as Socket | undefined, dead: holed };
    pairs.add(pair);
    inbound.on('error', () => undefined);
    const drop = () => {
      pairs.delete(pair);
      inbound.destroy();
      pair.outbound?.destroy();
    };
    inbound.on('close', drop);
    if (pair.dead) return; // blackholed from the start: accepted, never answered
    const outbound = connect(targetPort, '127.0.0.1');
    pair.outbound = outbound;
    outbound.on('error', () => undefined);
    outbound.on('close', () => {
      if (!pair.dead) drop(); // a blackholed peer's close is not seen either
    });
    inbound.on('data', (chunk) => {
      if (!pair.dead) outbound.write(chunk);
    });
    outbound.on('data', (chunk) => {
      if (!pair.dead) inbound.write(chunk);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    via: (url) => url.replace(/:(\d+)\//, `:${port}/`),
    blackhole() {
      holed = true;
      for (const pair of pairs) pair.dead = true;
    },
    restore() {
      holed = false;
      for (const pair of [...pairs]) {
        if (!pair.dead) continue;
        pair.inbound.resetAndDestroy();
        pair.outbound?.destroy();
        pairs.delete(pair);
      }
    },
    reset() {
      for (const pair of [...pairs]) {
        pair.inbound.resetAndDestroy();
        pair.outbound?.destroy();
        pairs.delete(pair);
      }
    },
    get open() {
      return pairs.size;
    },
    async close() {
      for (const pair of [...pairs]) {
        pair.inbound.destroy();
        pair.outbound?.destroy();
      }
      pairs.clear();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
