/**
 * How the peers benchmark prints: each comparison as `kassa / peer` with both figures, or the reason
 * a peer could not be measured here; every line is kept for the summary at the end.
 */

/** One measured figure: bytes (shown in KB) or milliseconds. */
export interface Figure {
  /** What was measured, e.g. `dist/widget/kassa.js` or `@adyen/adyen-web (PayByBank)`. */
  label: string;
  value: number;
  unit: 'bytes' | 'ms';
}

export const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

export const showFigure = (figure: Figure) =>
  figure.unit === 'bytes' ? kb(figure.value) : `${figure.value.toFixed(figure.value < 10 ? 1 : 0)} ms`;

/** The ratio with two decimals, or two significant digits when small enough that two decimals would read 0.00. */
export function showRatio(kassa: number, peer: number): string {
  if (!(peer > 0) || !Number.isFinite(kassa) || !Number.isFinite(peer)) return 'n/a';
  const ratio = kassa / peer;
  return ratio >= 0.1 || ratio === 0 ? ratio.toFixed(2) : ratio.toPrecision(2);
}

/** `what: kassa / peer = R (kassa figure / peer figure)`. */
export function ratioLine(what: string, kassa: Figure, peer: Figure): string {
  if (kassa.unit !== peer.unit) throw new Error(`${what}: ${kassa.unit} compared with ${peer.unit}`);
  return `${what}: kassa / peer = ${showRatio(kassa.value, peer.value)}  (${kassa.label} ${showFigure(kassa)} / ${peer.label} ${showFigure(peer)})`;
}

/** `what: kassa / peer not measured (kassa figure): reason`. */
export function unavailableLine(what: string, kassa: Figure, peer: string, reason: string): string {
  return `${what}: kassa / ${peer} not measured (${kassa.label} ${showFigure(kassa)}): ${reason}`;
}

/** Prints as it goes (a peer's install can take a while) and keeps the comparisons for the summary. */
export class Report {
  readonly comparisons: string[] = [];
  constructor(private readonly print: (line: string) => void = console.log) {}

  note(line: string): void {
    this.print(`  ${line}`);
  }

  ratio(what: string, kassa: Figure, peer: Figure): void {
    this.compare(ratioLine(what, kassa, peer));
  }

  unavailable(what: string, kassa: Figure, peer: string, reason: string): void {
    this.compare(unavailableLine(what, kassa, peer, reason));
  }

  private compare(line: string): void {
    this.comparisons.push(line);
    this.print(`= ${line}`);
  }
}

/** The first line of an error's message, for a reason printed on one line. */
export const reasonOf = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();
