/**
 * A chunk's loader that imports it once: every caller gets the same promise, and a call after a
 * failed import (offline, blocked) tries again.
 */
export function onDemand<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
