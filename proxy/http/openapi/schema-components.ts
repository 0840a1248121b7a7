import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * Turns zod schemas into the document's schemas. Named schemas (`.meta({ id })`) go to
 * `components.schemas` once and are referenced from there, as OpenAPI readers expect, instead of
 * zod's per-schema `$defs`. A name given to two different shapes is a mistake, and throws.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly texts = new Map<string, string>();

  of(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const {
      $schema: _,
      $defs,
      ...rest
    } = z.toJSONSchema(schema, {
      io,
      target: 'draft-2020-12',
      unrepresentable: 'any',
    }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    for (const [name, definition] of Object.entries($defs ?? {})) {
      const text = JSON.stringify(retarget(definition));
      const known = this.texts.get(name);
      if (known !== undefined && known !== text) throw new Error(`Two different schemas are both named ${name}`);
      this.texts.set(name, text);
      this.schemas[name] ??= JSON.parse(text) as JsonSchema;
    }
    return retarget(rest);
  }
}

const retarget = (value: JsonSchema): JsonSchema =>
  JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
