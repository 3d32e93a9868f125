#!/usr/bin/env node
/** The `checkout-partner` command line (Node only). */
import { main } from './main.js';

const controller = new AbortController();
const stop = () => controller.abort(new DOMException('Interrupted', 'AbortError'));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

const exitCode = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare -- undefined on a pipe, whatever @types/node says
  stdinIsTTY: process.stdin.isTTY === true,
  readStdin: async (maxBytes = Number.POSITIVE_INFINITY) => {
    const chunks: Uint8Array[] = [];
    let length = 0;
    for await (const chunk of process.stdin as AsyncIterable<Uint8Array>) {
      chunks.push(chunk);
      length += chunk.byteLength;
      if (length > maxBytes) break;
    }
    return new Uint8Array(Buffer.concat(chunks));
  },
  signal: controller.signal,
});
process.exitCode = exitCode;
// a read of stdin given up on (--timeout on a pipe that never closes) must not keep the process alive
process.stdin.destroy();
