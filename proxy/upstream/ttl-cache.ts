/**
 * Caches a slow answer briefly; concurrent misses share one load, and a failed load is not cached.
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, { value: Promise<T>; until: number }>();

  constructor(private readonly ttlMs: number) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const entry = this.entries.get(key);
    if (entry && entry.until > Date.now()) return entry.value;
    const value = load();
    this.entries.set(key, { value, until: Date.now() + this.ttlMs });
    value.catch(() => this.entries.delete(key));
    return value;
  }
}
