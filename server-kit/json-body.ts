import type { Context } from 'hono';
import type { z } from 'zod';
import { describeZodError } from '../lib/zod-message.ts';

export type JsonBody = { ok: true; value: unknown } | { ok: false; error: string };

/** No Kassa body nests deeper than this; deeper ones are refused before anything walks them. */
export const JSON_MAX_DEPTH = 32;

/**
 * Whether JSON text nests objects and arrays deeper than `max`, found in one pass without recursion
 * (brackets inside strings do not count), so that a hostile body cannot exhaust the stack of any
 * code that walks it later (JSON.stringify, schema checks).
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c)
        i++; // a backslash escapes the next character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      if (++depth > max) return true;
    } else if (char === 0x7d || char === 0x5d) depth--;
  }
  return false;
}

/**
 * Reads a request body as JSON without throwing: bad input is the caller's to answer with a clear
 * 400, never a 500. An empty body reads as `undefined` so routes can say what is missing.
 */
export async function readJsonBody(c: Context): Promise<JsonBody> {
  let text: string;
  try {
    text = await c.req.text();
  } catch {
    return { ok: false, error: 'Request body could not be read' };
  }
  if (text.trim() === '') return { ok: true, value: undefined };
  if (nestsDeeperThan(text, JSON_MAX_DEPTH))
    return { ok: false, error: `Request body must not nest deeper than ${JSON_MAX_DEPTH} levels` };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, error: 'Request body must be valid JSON' };
  }
}

/** A JSON object (not null, not an array): the only top-level body any Kassa endpoint accepts. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads a JSON object body and parses it with a schema; the error names the first problem. An empty
 * body parses as `{}` so that schemas whose fields are all optional accept it.
 */
export async function parseJsonBody<Schema extends z.ZodType>(
  c: Context,
  schema: Schema,
): Promise<{ ok: true; data: z.output<Schema> } | { ok: false; error: string }> {
  const body = await readJsonBody(c);
  if (!body.ok) return body;
  const value = body.value === undefined ? {} : body.value;
  if (!isRecord(value)) return { ok: false, error: 'Request body must be a JSON object' };
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, error: describeZodError(parsed.error) };
}
