import type { Context } from 'hono';
import type { z } from 'zod';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { HttpProblem } from './http-problem.ts';

/** The request's JSON body as `schema` reads it, or a 400 naming the first problem. */
export async function jsonRequest<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const parsed = await parseJsonBody(c, schema);
  if (!parsed.ok) throw new HttpProblem(400, parsed.error);
  return parsed.data;
}
