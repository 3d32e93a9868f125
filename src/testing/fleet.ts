/** How long a receiver that gave no answer comes after those that did. */
const DOWN_FOR_MS = 1_000;

/** `delivery()` is one delivery's `fetch` over the fleet, as `ProviderSimulatorOptions.url` says; an aborted attempt goes nowhere else. */
export function fleet(
  endpoints: readonly string[],
  send: (request: Request) => Promise<Response>,
): { delivery(): (request: Request) => Promise<Response> } {
  const downUntil = new Map<string, number>();
  let nextDelivery = 0;
  return {
    delivery() {
      let next = nextDelivery;
      nextDelivery = (nextDelivery + 1) % endpoints.length;
      return async (request) => {
        const now = performance.now();
        const turn = endpoints.map((_, i) => (next + i) % endpoints.length);
        const up = (i: number) => (downUntil.get(endpoints[i]!) ?? 0) <= now;
        const body = await request.text();
        let failure: unknown;
        for (const i of [...turn.filter(up), ...turn.filter((i) => !up(i))]) {
          try {
            const init = { method: request.method, headers: request.headers, body, redirect: request.redirect, signal: request.signal };
            const response = await send(new Request(endpoints[i]!, init));
            next = (i + 1) % endpoints.length;
            return response;
          } catch (error) {
            downUntil.set(endpoints[i]!, performance.now() + DOWN_FOR_MS);
            if (request.signal.aborted) throw error;
            failure = error;
          }
        }
        throw failure;
      };
    },
  };
}
