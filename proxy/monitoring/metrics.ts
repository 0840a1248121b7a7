import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RequestTally } from './request-tally.ts';
import type { Coordination } from '../state/coordination.ts';
import type { Store } from '../state/store.ts';
import type { UpstreamService } from '../upstream/upstream-error.ts';
import type { UpstreamHealth } from '../upstream/upstream-health.ts';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A path's variable segments (ids, tokens) as `:id`, so that a label has few values. */
export function operationOf(pathname: string): string {
  return pathname
    .replace(/^\/+/, '')
    .split('/')
    .map((segment) => (/\d/.test(segment) && segment.length > 6 ? ':id' : segment))
    .join('/');
}

/**
 * The proxy's Prometheus metrics (prom-client), one registry per proxy: HTTP requests, upstream calls
 * and token exchanges, SSE connections, webhooks, Redis round trips, and, read from the store when
 * scraped, payments by status and age, the upstream budgets and the events outbox.
 */
export class ProxyMetrics {
  readonly registry = new Registry();
  private readonly http = new RequestTally(this.registry, SECONDS);
  private readonly upstreamCalls = new Counter({
    name: 'kassa_upstream_calls_total',
    help: 'Calls to the upstream services, by service, operation and outcome (a status class, or error)',
    labelNames: ['service', 'operation', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly upstreamDuration = new Histogram({
    name: 'kassa_upstream_call_duration_seconds',
    help: 'Time of calls to the upstream services',
    labelNames: ['service', 'operation'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly upstreamMismatches = new Counter({
    name: 'kassa_upstream_mismatch_total',
    help: 'Upstream answers refused because they were not about what was asked, by service and field',
    labelNames: ['service', 'field'] as const,
    registers: [this.registry],
  });
  private readonly tokenExchanges = new Counter({
    name: 'kassa_token_exchanges_total',
    help: 'Payment-service token exchanges, by outcome (ok, refused, error)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private streamsOpen = 0;
  /**
   * Streams opened and closed, counted in a plain number read when scraped: a fan-out closes thousands
   * of streams at once, and prom-client's `dec` costs each of them more than its last write.
   */
  readonly sseConnections = {
    inc: () => void this.streamsOpen++,
    dec: () => void this.streamsOpen--,
  };
  private readonly webhooks = new Counter({
    name: 'kassa_webhooks_received_total',
    help: 'Upstream webhooks, by result (accepted, duplicate, forged)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly redisCommands = new Counter({
    name: 'kassa_redis_commands_total',
    help: 'Commands sent to Redis (round trips of a fleet)',
    registers: [this.registry],
  });

  constructor(sources: { store: Store; coordination: Coordination; health: UpstreamHealth; events: boolean }) {
    collectDefaultMetrics({ register: this.registry, prefix: 'kassa_' });
    const streamsOpen = () => this.streamsOpen;
    new Gauge({
      name: 'kassa_sse_connections',
      help: 'Server-Sent Events streams open now',
      registers: [this.registry],
      collect() {
        this.set(streamsOpen());
      },
    });
    const { store, coordination, health } = sources;
    new Gauge({
      name: 'kassa_upstream_up',
      help: 'Whether each upstream service is usable (1) or refuses Kassa or cannot be reached (0), as /readyz sees it',
      labelNames: ['service', 'state'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const service of ['pay', 'orders', 'reforge'] as const) {
          const { state } = service === 'pay' ? health.pay : health[service];
          this.set({ service, state }, state === 'ok' || state === 'unknown' ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: 'kassa_upstream_budget_used',
      help: 'Upstream requests in the current minute, fleet-wide, by budget',
      labelNames: ['budget'] as const,
      registers: [this.registry],
      async collect() {
        const [tokens, payments] = await Promise.all([
          coordination.tokenBudget.used(),
          coordination.paymentBudget.used(),
        ]);
        this.set({ budget: 'token' }, tokens);
        this.set({ budget: 'payment' }, payments);
      },
    });
    new Gauge({
      name: 'kassa_upstream_budget_limit',
      help: 'Upstream requests allowed per minute, by budget',
      labelNames: ['budget'] as const,
      registers: [this.registry],
      collect() {
        this.set({ budget: 'token' }, coordination.tokenBudget.limit);
        this.set({ budget: 'payment' }, coordination.paymentBudget.limit);
      },
    });
    const pendingByAge = new Gauge({
      name: 'kassa_payments_pending_by_age',
      help: 'Payments not yet final, by age bucket',
      labelNames: ['age'] as const,
      registers: [this.registry],
    });
    new Gauge({
      name: 'kassa_payments',
      help: 'Payments recorded, by status',
      labelNames: ['status'] as const,
      registers: [this.registry],
      async collect() {
        const stats = await store.paymentStats(Date.now());
        this.reset();
        for (const [status, count] of Object.entries(stats.byStatus)) this.set({ status }, count);
        for (const [age, count] of Object.entries(stats.pendingByAge)) pendingByAge.set({ age }, count);
      },
    });
    if (sources.events) {
      const oldest = new Gauge({
        name: 'kassa_events_outbox_oldest_seconds',
        help: 'Age of the oldest merchant event not yet delivered (0: none)',
        registers: [this.registry],
      });
      new Gauge({
        name: 'kassa_events_outbox_depth',
        help: 'Merchant events not yet delivered nor given up',
        registers: [this.registry],
        async collect() {
          const depth = await store.outbox.depth();
          this.set(depth.pending);
          oldest.set(depth.oldestCreatedAt === null ? 0 : (Date.now() - depth.oldestCreatedAt) / 1000);
        },
      });
    }
  }

  /** Counts and times one answered request, by its route pattern (never its path). */
  httpRequest(route: string, method: string, status: number, seconds: number): void {
    this.http.record(route, method, status, seconds);
  }

  upstreamCall(service: UpstreamService, operation: string, outcome: string, seconds: number): void {
    this.upstreamCalls.inc({ service, operation, outcome });
    this.upstreamDuration.observe({ service, operation }, seconds);
    if (operation === 'v1/auth/token')
      this.tokenExchanges.inc({ outcome: outcome === '2xx' ? 'ok' : outcome === 'error' ? 'error' : 'refused' });
  }

  upstreamMismatch(service: UpstreamService, field: string): void {
    this.upstreamMismatches.inc({ service, field });
  }

  webhook(result: 'accepted' | 'duplicate' | 'forged'): void {
    this.webhooks.inc({ result });
  }

  /** A fetch for ky that times and counts each upstream call; `basePath` is the service's base URL path. */
  instrumentedFetch(service: UpstreamService, basePath: string): typeof fetch {
    const base = basePath.replace(/\/+$/, '');
    return async (input, init) => {
      const started = performance.now();
      const { pathname } = new URL(input instanceof Request ? input.url : String(input));
      const operation = operationOf(pathname.startsWith(base) ? pathname.slice(base.length) : pathname);
      try {
        const response = await fetch(input, init);
        this.upstreamCall(
          service,
          operation,
          `${Math.floor(response.status / 100)}xx`,
          (performance.now() - started) / 1000,
        );
        return response;
      } catch (error) {
        this.upstreamCall(service, operation, 'error', (performance.now() - started) / 1000);
        throw error;
      }
    };
  }
}
