/** A date field's day (`2026-11-23`) as the moment that day starts here, `days` later, in ISO 8601. */
export function dayStart(day: string, days = 0): string | undefined {
  const [year, month, date] = day.split('-').map(Number);
  if (!year || !month || !date) return undefined;
  return new Date(year, month - 1, date + days).toISOString();
}

/** An ISO moment as the date field shows it, in local time (the day a `dayStart` came from). */
export function dayOf(iso: string | undefined, days = 0): string {
  if (!iso) return '';
  const at = new Date(iso);
  at.setDate(at.getDate() + days);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}
