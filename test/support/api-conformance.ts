/**
 * Whether the proxy's answers are what its OpenAPI document says: the status is one the operation
 * lists, the media type one it lists for that status, a JSON body validates against the schema (zod
 * reads the document's JSON Schema back), and the headers it marks required are there.
 *
 * The stack turns this on for its proxy (watchAnswers), so every answer of every proxy suite that goes
 * through the test HTTP helper is checked, and a mismatch fails the test that saw it.
 */
import { z } from 'zod';
import { onAnswer, type Answered } from './http.ts';

type Json = Record<string, unknown>;
interface ResponseDoc {
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, { schema?: Json }>;
}
interface OperationDoc {
  operationId: string;
  responses: Record<string, ResponseDoc>;
}
export interface ApiDocument {
  paths: Record<string, Record<string, OperationDoc>>;
  components: { schemas: Record<string, Json> };
}

/** The document's paths as patterns, literal segments before templated ones (`/status/x` before `/{id}/x`). */
function pathPatterns(document: ApiDocument) {
  return Object.keys(document.paths)
    .map((path) => ({
      path,
      templated: (path.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`),
    }))
    .sort((a, b) => a.templated - b.templated);
}

/** JSON Schema's `default` is an annotation; zod would fill a missing required field with it. */
function withoutDefaults(schema: unknown, isMap = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => withoutDefaults(item));
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => isMap || key !== 'default')
      .map(([key, value]) => [
        key,
        key === 'const' || key === 'enum' || key === 'examples' || key === 'example'
          ? value
          : withoutDefaults(value, !isMap && (key === 'properties' || key === '$defs' || key === 'patternProperties')),
      ]),
  );
}

export class ApiConformance {
  private readonly patterns;
  private readonly defs: Json;
  private readonly validators = new Map<string, z.ZodType>();
  /** `operationId status` of every answer checked, for a summary of what the tests saw. */
  readonly seen = new Set<string>();

  constructor(private readonly document: ApiDocument) {
    this.patterns = pathPatterns(document);
    this.defs = withoutDefaults(
      JSON.parse(JSON.stringify(document.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/')),
      true,
    ) as Json;
  }

  /** The operation a request names, or undefined when the document has none (an unknown path or method). */
  operation(method: string, path: string): { path: string; operation: OperationDoc } | undefined {
    for (const candidate of this.patterns) {
      if (!candidate.pattern.test(path)) continue;
      const operation = this.document.paths[candidate.path]![method.toLowerCase()];
      if (operation) return { path: candidate.path, operation };
    }
    return undefined;
  }

  /** What is wrong with an answer, in words; empty when it is as documented. */
  check(answer: Answered): string[] {
    // HEAD is GET without the body (HTTP semantics; Hono answers it with the GET route).
    const head = answer.method === 'HEAD';
    const found = this.operation(head ? 'GET' : answer.method, answer.path);
    const what = `${answer.method} ${answer.path} → ${answer.status}`;
    if (!found) {
      // Not an operation: the app's 404 (unknown path or method) or a CORS preflight.
      if (answer.method === 'OPTIONS' || answer.status === 404) return [];
      return [`${what}: no operation of the document answers this`];
    }
    const { operation } = found;
    const key = [String(answer.status), `${String(answer.status)[0]}XX`, 'default'].find(
      (status) => operation.responses[status],
    );
    if (!key) return [`${what}: ${operation.operationId} does not document status ${answer.status}`];
    this.seen.add(`${operation.operationId} ${key}`);
    const documented = operation.responses[key]!;
    const problems: string[] = [];
    for (const [name, header] of Object.entries(documented.headers ?? {}))
      if (header.required && !answer.headers.has(name)) problems.push(`${what}: header ${name} is missing`);
    const mediaType = answer.headers.get('content-type')?.split(';')[0]!.trim().toLowerCase();
    if (head) return problems;
    if (!documented.content) {
      if (answer.text !== '') problems.push(`${what}: a body (${mediaType}) where the document has none`);
      return problems;
    }
    const content = mediaType === undefined ? undefined : documented.content[mediaType];
    if (!content) {
      problems.push(`${what}: media type ${mediaType} is not one of ${Object.keys(documented.content).join(', ')}`);
      return problems;
    }
    if (mediaType === 'application/json' && content.schema) {
      const parsed = this.validator(content.schema).safeParse(answer.body);
      if (!parsed.success)
        problems.push(
          `${what}: the body does not match ${operation.operationId}'s schema: ${z.prettifyError(parsed.error)}`,
        );
    }
    return problems;
  }

  /** What is wrong with a value of a named schema (`components.schemas`), or undefined. */
  invalid(name: string, value: unknown): string | undefined {
    const parsed = this.validator({ $ref: `#/components/schemas/${name}` }).safeParse(value);
    return parsed.success ? undefined : z.prettifyError(parsed.error);
  }

  private validator(schema: Json): z.ZodType {
    const text = JSON.stringify(schema);
    let validator = this.validators.get(text);
    if (!validator) {
      const local = withoutDefaults(JSON.parse(text.replaceAll('"#/components/schemas/', '"#/$defs/'))) as Json;
      validator = z.fromJSONSchema({ ...local, $defs: this.defs } as z.core.JSONSchema.JSONSchema, {
        defaultTarget: 'draft-2020-12',
      });
      this.validators.set(text, validator);
    }
    return validator;
  }
}

export class AnswerMismatch extends Error {
  override name = 'AnswerMismatch';
}

/** Per watched origin, the checker of the document served there, read at the first answer. */
const watched = new Map<string, { conformance?: Promise<ApiConformance> }>();

/**
 * Checks every answer from this origin that the HTTP helper reads against the document the proxy
 * serves there. Watching again (a restarted proxy, other settings) reads the document again. A
 * mismatch throws from the helper, in the test that saw it.
 */
export function watchAnswers(origin: string): void {
  watched.set(origin, {});
}

/** Stops checking an origin: its proxy stopped, and another server may be given its port. */
export function unwatchAnswers(origin: string): void {
  watched.delete(origin);
}

/** The checker of a watched origin (what it has seen so far included); undefined when not watched. */
export function conformanceOf(origin: string): Promise<ApiConformance> | undefined {
  const entry = watched.get(origin);
  if (!entry) return undefined;
  entry.conformance ??= fetch(`${origin}/openapi.json`)
    .then((response) => response.json() as Promise<ApiDocument>)
    .then((document) => new ApiConformance(document));
  return entry.conformance;
}

onAnswer(async (answer) => {
  const conformance = conformanceOf(answer.origin);
  if (!conformance) return;
  const problems = (await conformance).check(answer);
  if (problems.length)
    throw new AnswerMismatch(
      `The proxy's answer is not as its OpenAPI document says (fix the route, or its operation table beside it):\n${problems.join('\n')}`,
    );
});
