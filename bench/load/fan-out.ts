import { http } from '../../test/support/http.ts';
import { percentile } from '../stats.ts';
import { runWorker, type StreamsResult } from './run-worker.ts';

export interface FanOut {
  /** The first subscriber's latency: what the webhook, the re-read and the bus cost before any write. */
  first: number;
  p50: number;
  p95: number;
  last: number;
  missed: number;
  /** Upstream payment reads between the streams opening and the last event, webhook included. */
  reads: number;
}

/**
 * Opens `subscribers` SSE streams on one payment (spread over `streamUrls`), waits `watchMs` with all
 * of them open, then settles the payment in the emulator and measures, for each subscriber, the time
 * from the webhook's delivery to the final event.
 */
export async function measureFanOut(options: {
  control: string;
  transactionId: string;
  streamUrls: string[];
  subscribers: number;
  watchMs: number;
}): Promise<FanOut> {
  const reads = async () => ((await http(`${options.control}/metrics`)).body['pay.read'] as number | undefined) ?? 0;
  let ready!: () => void;
  const allOpen = new Promise<void>((resolve) => (ready = resolve));
  const streams = runWorker<StreamsResult>(
    {
      kind: 'streams',
      urls: options.streamUrls,
      clients: options.subscribers,
      until: '"status":"COMPLETED"',
      timeoutMs: options.watchMs + 60_000,
    },
    ready,
  );
  await allOpen;
  const readsBefore = await reads();
  await new Promise((resolve) => setTimeout(resolve, options.watchMs));
  await http(`${options.control}/payments/${options.transactionId}/outcome`, { body: { status: 'COMPLETED' } });
  const { arrivals, missing } = await streams;
  const [delivery] = (await http(`${options.control}/webhooks?transactionId=${options.transactionId}`)).body as Array<{
    startedAt: string;
  }>;
  const latencies = arrivals.map((at) => at - Date.parse(delivery!.startedAt));
  return {
    first: Math.min(...latencies),
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    last: Math.max(...latencies),
    missed: missing,
    reads: (await reads()) - readsBefore,
  };
}
