/**
 * Accept-Encoding (RFC 9110 §12.5.3): which content coding of a response the client takes. Parsed
 * leniently (an entry that is not `coding[;q=value]` is skipped, never an error), decided strictly
 * (q-values, `*`, `identity;q=0`).
 */

/** The codings a request accepts, each with its weight (0 to 1), as the header lists them. */
export function parseAcceptEncoding(header: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const entry of header.split(',')) {
    const [name = '', ...params] = entry.split(';').map((part) => part.trim());
    if (!/^(?:\*|[!#$%&'*+.^_`|~0-9A-Za-z-]+)$/.test(name)) continue;
    let weight = 1;
    for (const param of params) {
      const [key = '', value = ''] = param.split('=').map((part) => part.trim());
      if (key.toLowerCase() !== 'q') continue;
      // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ); anything else voids the entry.
      weight = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value) ? Number(value) : NaN;
    }
    const coding = name.toLowerCase();
    // A coding listed twice keeps its first weight.
    if (!Number.isNaN(weight) && !weights.has(coding)) weights.set(coding, weight);
  }
  return weights;
}

/**
 * The coding to send, from those on offer (in the server's order of preference), for a request's
 * Accept-Encoding: the one the client weighs highest, the server's preference breaking ties, and
 * identity, when not listed, only if nothing listed is on offer. `identity` when the request has no
 * Accept-Encoding: a client that says nothing may not decode anything. Undefined when nothing on offer
 * is acceptable (`identity;q=0` or `*;q=0`, and no coding on offer listed): the answer is then 406.
 */
export function chooseEncoding(header: string | undefined, offered: readonly string[]): string | undefined {
  if (header === undefined) return offered.includes('identity') ? 'identity' : undefined;
  const weights = parseAcceptEncoding(header);
  const star = weights.get('*');
  let best: string | undefined;
  let bestWeight = 0;
  for (const coding of offered) {
    // Not listed: as `*` says; else only identity (no coding at all) is acceptable, as a last resort.
    const weight = weights.get(coding) ?? star ?? (coding === 'identity' ? Number.MIN_VALUE : 0);
    if (weight > bestWeight) [best, bestWeight] = [coding, weight];
  }
  return best;
}
