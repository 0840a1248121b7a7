import type { z } from 'zod';

/**
 * One human-readable sentence for a failed parse, naming the field: the upstream services and the
 * proxy answer bad input with `{ error: "<what is wrong>" }`, so the first problem is the message.
 */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid request';
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') return `Unknown field: ${[path, ...issue.keys].filter(Boolean).join('.')}`;
  // Messages written in the schemas already name their field; zod's defaults do not.
  if (!path || issue.message.startsWith(path) || issue.message.includes(` ${path}`)) return issue.message;
  return `${path}: ${issue.message}`;
}
