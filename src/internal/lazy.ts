/**
 * A module imported at its first use: `lazy(() => import('./x.js'))` (a literal specifier, so a
 * bundler splits it into a chunk of its own). The import is made once; one that fails is tried
 * again at the next use.
 */
export function lazy<M>(load: () => Promise<M>): () => Promise<M> {
  let loading: Promise<M> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
