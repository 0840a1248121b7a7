/** An IMF-fixdate (RFC 9110, 5.6.7), the form every HTTP date is sent in today. */
const HTTP_DATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * How long a `Retry-After` header asks to wait, in milliseconds (RFC 9110, 10.2.3): delay-seconds, or
 * an HTTP date (a past one: no wait). Undefined when absent or not one of those; the caller caps it.
 */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!HTTP_DATE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
