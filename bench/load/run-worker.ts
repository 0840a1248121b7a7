import { Worker } from 'node:worker_threads';

export type ReadsResult = { answers: number; errors: number; seconds: number };
export type StreamsResult = { arrivals: number[]; missing: number };

/**
 * Starts load-worker.ts with a job; `onReady` fires when every stream has its first event.
 */
export function runWorker<T>(job: Record<string, unknown>, onReady?: () => void): Promise<T> {
  // Node 20 workers do not inherit tsx's loader: a one-line bootstrap loads the TypeScript through tsx.
  const bootstrap = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(new URL('./load-worker.ts', import.meta.url).href)}, ${JSON.stringify(import.meta.url)}))`;
  const worker = new Worker(bootstrap, { eval: true, workerData: job });
  return new Promise<T>((resolve, reject) => {
    worker.on('message', (message: { ready?: boolean; result?: T }) => {
      if (message.ready) onReady?.();
      if (message.result) {
        resolve(message.result);
        void worker.terminate();
      }
    });
    worker.on('error', reject);
  });
}
