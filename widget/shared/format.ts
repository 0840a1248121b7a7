/**
 * A duration in words, with the language's plural: whole seconds up to two minutes, whole minutes
 * beyond (`90 seconds`, `1 Sekunde`, `10 minutes`).
 */
export function formatDuration(ms: number, locale: string): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  const [value, unit] = seconds <= 120 ? [seconds, 'second'] : [Math.round(seconds / 60), 'minute'];
  return new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(value);
}
