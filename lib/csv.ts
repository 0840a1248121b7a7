/** CSV the way spreadsheets read it safely: the payment export's and the audit export's. */

/**
 * One RFC 4180 field: quoted when it holds a comma, a quote or a line break, quotes doubled. A field
 * that a spreadsheet would run as a formula (=, +, -, @ first) is prefixed with a quote mark, so that
 * an exported reference can never execute in the operator's spreadsheet.
 */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A line of the export, with its CRLF. */
export const csvLine = (fields: ReadonlyArray<string | number | boolean | null>): string =>
  `${fields.map(csvField).join(',')}\r\n`;
