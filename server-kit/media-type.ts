/** A Content-Type header read as RFC 9110 writes it: `type/subtype`, then `; name=value` parameters. */
export interface MediaType {
  /** `type/subtype`, lower case (media types are case-insensitive). */
  essence: string;
  /** Parameter names in lower case; values unquoted, as sent. */
  parameters: Record<string, string>;
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[^"\\\\\\x00-\\x08\\x0a-\\x1f\\x7f]|\\\\[\\t\\x20-\\x7e\\x80-\\xff])*"';
const MEDIA_TYPE = new RegExp(
  `^(${TOKEN}/${TOKEN})((?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED}))*)[ \\t]*;?[ \\t]*$`,
);
const PARAMETER = new RegExp(`;[ \\t]*(${TOKEN})=(${TOKEN}|${QUOTED})`, 'g');

/** The media type of a Content-Type value, or undefined when it is not one (empty, garbled, too long). */
export function parseMediaType(value: string): MediaType | undefined {
  if (value.length > 1_000) return undefined;
  const match = MEDIA_TYPE.exec(value.trim());
  if (!match) return undefined;
  const parameters: Record<string, string> = {};
  for (const [, name, raw] of match[2]!.matchAll(PARAMETER))
    parameters[name!.toLowerCase()] = raw!.startsWith('"') ? raw!.slice(1, -1).replace(/\\(.)/g, '$1') : raw!;
  return { essence: match[1]!.toLowerCase(), parameters };
}
