import type { Metric, Registry } from 'prom-client';

/** One route, method and status: its count, and its durations by histogram bucket. */
interface Series {
  route: string;
  method: string;
  status: string;
  count: number;
  sum: number;
  /** Per bucket, not cumulative; the last slot is above every bound (+Inf). */
  buckets: number[];
}

interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/**
 * HTTP requests counted and timed for /metrics as `kassa_http_requests_total` and
 * `kassa_http_request_duration_seconds`, with the cost on the request reduced to a few lookups and
 * additions: prom-client's own `observe` checks and hashes a label object on every call, which on
 * the status-read hot path cost more than the rest of the read. The series are turned into
 * prom-client's exposition only when scraped, through the registry's documented metric shape
 * (`get()` answering name, help, type and values).
 */
export class RequestTally {
  /** route → method → status → series: no string is built per request. */
  private readonly table = new Map<string, Map<string, Map<number, Series>>>();

  constructor(
    registry: Registry,
    private readonly bounds: readonly number[],
  ) {
    this.register(
      registry,
      'kassa_http_requests_total',
      'HTTP requests answered, by route, method and status',
      'counter',
      () =>
        [...this.series()].map((series) => ({
          value: series.count,
          labels: { route: series.route, method: series.method, status: series.status },
        })),
    );
    this.register(
      registry,
      'kassa_http_request_duration_seconds',
      'Time to answer an HTTP request (to its first byte for streams)',
      'histogram',
      () => this.durations(),
    );
  }

  record(route: string, method: string, status: number, seconds: number): void {
    let methods = this.table.get(route);
    if (!methods) this.table.set(route, (methods = new Map<string, Map<number, Series>>()));
    let statuses = methods.get(method);
    if (!statuses) methods.set(method, (statuses = new Map<number, Series>()));
    let series = statuses.get(status);
    if (!series) {
      series = { route, method, status: String(status), count: 0, sum: 0, buckets: this.bounds.map(() => 0).concat(0) };
      statuses.set(status, series);
    }
    series.count++;
    series.sum += seconds;
    let slot = 0;
    while (slot < this.bounds.length && seconds > this.bounds[slot]!) slot++;
    series.buckets[slot]!++;
  }

  private *series(): Generator<Series> {
    for (const methods of this.table.values()) for (const statuses of methods.values()) yield* statuses.values();
  }

  /** The duration histogram is by route and method, as before: the statuses of one pair are added up. */
  private durations(): Sample[] {
    const name = 'kassa_http_request_duration_seconds';
    const samples: Sample[] = [];
    for (const [route, methods] of this.table)
      for (const [method, statuses] of methods) {
        const buckets = this.bounds.map(() => 0).concat(0);
        let sum = 0;
        for (const series of statuses.values()) {
          sum += series.sum;
          series.buckets.forEach((count, slot) => (buckets[slot]! += count));
        }
        let cumulative = 0;
        buckets.forEach((count, slot) => {
          cumulative += count;
          const le = slot < this.bounds.length ? this.bounds[slot]! : '+Inf';
          samples.push({ value: cumulative, labels: { route, method, le }, metricName: `${name}_bucket` });
        });
        samples.push({ value: sum, labels: { route, method }, metricName: `${name}_sum` });
        samples.push({ value: cumulative, labels: { route, method }, metricName: `${name}_count` });
      }
    return samples;
  }

  private register(
    registry: Registry,
    name: string,
    help: string,
    type: 'counter' | 'histogram',
    values: () => Sample[],
  ): void {
    const metric = {
      name,
      help,
      type,
      aggregator: 'sum',
      get: () => Promise.resolve({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => this.table.clear(),
    };
    // The registry takes any object of this shape; its type names only prom-client's own classes.
    registry.registerMetric(metric as unknown as Metric);
  }
}
