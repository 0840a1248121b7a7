/** Counts the requests each upstream operation received (`GET /_sandbox/metrics`). */
export class Metrics {
  private readonly counts = new Map<string, number>();

  count(operation: string): void {
    this.counts.set(operation, (this.counts.get(operation) ?? 0) + 1);
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  reset(): void {
    this.counts.clear();
  }
}
