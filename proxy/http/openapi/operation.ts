/**
 * How a route describes itself for the OpenAPI document. Each routes module exports a table of its
 * operations beside the routes (see payments/payment-routes.ts); document.ts turns the tables into
 * OpenAPI, and test/proxy/openapi.test.ts fails for a route the app serves that no table describes, or
 * the reverse.
 */
import type { z } from 'zod';
import type { HttpProblem } from '../http-problem.ts';
import type { RoutePermission } from '../../operator/permissions.ts';

/** Who calls an operation: its tag. */
export type Audience = 'merchant' | 'browser' | 'operator' | 'infrastructure';

/**
 * How a caller is known. A public operation says why it needs no credential; the reason is part of its
 * description, so that a reader (and a reviewer of a new route) sees it was meant.
 */
export type Access =
  | { auth: 'merchantKey' | 'scraper' }
  /** An operator's credential (docs/operators.md) whose role gives `permission`; operatorAuth enforces it. */
  | { auth: 'operator'; permission: RoutePermission }
  /** No credential (the customer's view), or the merchant key (the merchant's view). */
  | { auth: 'merchantKeyOptional' }
  | { auth: 'public'; because: string };

export type ErrorStatus = HttpProblem['status'];

/** A JSON body by its zod schema (the document's schema is generated from it), with an example. */
export interface JsonBody {
  schema: z.ZodType;
  example: unknown;
}

/** A body in another format (a page, a script, CSV, an event stream), as text. */
export interface TextBody {
  contentType: string;
  description?: string;
  example?: string;
}

export interface HeaderDoc {
  description: string;
  /** Sent with every answer of this status. */
  required?: boolean;
  schema?: Record<string, unknown>;
}

/** One answer of an operation, other than the `{error}` answers listed in `errors`. */
export interface Answer {
  description: string;
  json?: JsonBody;
  /** One text format, or several the client chooses between (a query parameter says which). */
  text?: TextBody | readonly TextBody[];
  headers?: Record<string, HeaderDoc>;
}

/**
 * A path parameter. Its example names a resource the document's other examples show (the checkout,
 * the payment, the event), so that a contract tester can follow one example request to the next.
 */
export interface PathParam {
  description: string;
  example: string;
}

export interface QueryParam {
  description: string;
  schema: z.ZodType;
}

export interface ApiOperation {
  /** Stable: generated clients name their methods after it. */
  operationId: string;
  summary: string;
  description: string;
  /** Who calls it; the first is its main audience (a generator groups it there). */
  audience: Audience | readonly [Audience, ...Audience[]];
  access: Access;
  /** Each path parameter, by the name the route uses. */
  params?: Record<string, PathParam>;
  query?: Record<string, QueryParam>;
  idempotencyKey?: 'required' | 'optional';
  request?: JsonBody;
  /** Every answer that is not an `{error}` body: successes, redirects, pages, a probe's 503. */
  responses: Record<number, Answer>;
  /** Every `{error}` answer the route gives, with what it means there. 500 is added to every operation. */
  errors: Partial<Record<ErrorStatus, string>>;
  deprecated?: boolean;
}

/** `'<METHOD> <path>'`, the path as OpenAPI writes it (`{name}` for `:name`). */
export type OperationKey = `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`;
export type ApiOperations = Record<OperationKey, ApiOperation>;

/** The query parameters of a zod object schema, each with its description. */
export function queryOf<Shape extends z.ZodRawShape>(
  shape: Shape,
  descriptions: Record<keyof Shape & string, string>,
): Record<string, QueryParam> {
  return Object.fromEntries(
    Object.entries(descriptions).map(([name, description]) => [
      name,
      { description, schema: shape[name] as unknown as z.ZodType },
    ]),
  );
}
