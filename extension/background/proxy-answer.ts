/** What the worker's operator calls share: a query string of the values given, and the answer checked. */

/** `?name=value&…` of the values that are set, in order; '' when none is. */
export function query(values: Record<string, string | number | undefined>): string {
  const entries = Object.entries(values).filter(
    (entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '',
  );
  return entries.length ? `?${new URLSearchParams(entries.map(([name, value]) => [name, String(value)]))}` : '';
}

/** The proxy's answer as its schema says, or a plain refusal (a proxy too old for the route, say). */
export function proxyAnswer<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
  value: unknown,
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error('The proxy answered something other than what it documents: is it up to date?');
  return parsed.data;
}
