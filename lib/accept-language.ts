/**
 * The language to answer in: the first of an Accept-Language header's languages, by quality, that
 * is among `supported`; `supported[0]` when none is. Only the primary subtag counts (`de-CH` is `de`).
 */
export function acceptedLanguage<L extends string>(header: string | undefined, supported: readonly L[]): L {
  const ranked = (header ?? '')
    .slice(0, 500)
    .split(',')
    .map((entry, index) => {
      const [tag = '', ...params] = entry.trim().split(';');
      const quality = params.map((param) => /^\s*q=([0-9.]{1,5})\s*$/.exec(param)?.[1]).find(Boolean);
      return { language: tag.split('-')[0]!.toLowerCase(), q: quality === undefined ? 1 : Number(quality), index };
    })
    .filter((entry) => entry.q > 0 && (supported as readonly string[]).includes(entry.language))
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return (ranked[0]?.language as L | undefined) ?? supported[0]!;
}
