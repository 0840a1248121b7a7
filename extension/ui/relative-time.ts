const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

/**
 * A moment relative to now in the language's words, in its largest whole unit: "in 10 minutes",
 * "vor 3 Stunden", "il y a 5 min" (`short`). `deltaMs` is the moment minus now.
 */
export function relativeTime(deltaMs: number, language: string, style: Intl.RelativeTimeFormatStyle = 'long'): string {
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'auto', style });
  const [unit, size] = UNITS.find(([, ms]) => Math.abs(deltaMs) >= ms) ?? UNITS.at(-1)!;
  return format.format(Math.trunc(deltaMs / size), unit);
}
