import { ProxyError } from './proxy-client.ts';

/**
 * A chunk's loader that imports it once: every caller gets the same promise, and a call after a
 * failed import (offline, blocked) tries again. The proxy serves the chunks, so one that cannot be
 * fetched is the proxy out of reach, said as such (not as the proxy failing).
 */
export function onDemand<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error instanceof ProxyError ? error : new ProxyError('unreachable', 0, String(error));
    }));
}
