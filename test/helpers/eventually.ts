/**
 * Polls `check` every 20 ms until it holds; `false` once `timeoutMs` has passed. For real servers
 * only (a redis-server or PostgreSQL reaching a state on its own clock); code on our own timers is
 * driven with fake timers instead. Bounded, and never a timing assertion.
 */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}
