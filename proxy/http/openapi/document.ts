/**
 * The proxy's OpenAPI 3.1 document, generated from the routes' operation tables (operation.ts) and the
 * same zod schemas the routes validate with. It passes Redocly's recommended rules with no warning
 * (test/proxy/openapi.test.ts), so code generators get a named method and typed errors for every route.
 */
import { EVENT_SCHEMAS, type KassaEventType } from '../../../schemas/events.ts';
import { errorSchema, IDEMPOTENCY_KEY_PATTERN } from '../../../schemas/proxy-api.ts';
import { permissionRefusalSchema } from '../../../schemas/operators.ts';
import { describePermission, ROLE_PERMISSIONS, ROLES, allows } from '../../operator/permissions.ts';
import { EVENT_EXAMPLES } from './examples.ts';
import type { Access, Answer, ApiOperation, ApiOperations, Audience, ErrorStatus } from './operation.ts';
import type { RoutePermission } from '../../operator/permissions.ts';
import { ERROR_HEADERS } from './problems.ts';
import { SchemaComponents, type JsonSchema } from './schema-components.ts';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, JsonSchema>> };

const TAGS: Record<Audience | 'events', { name: string; description: string }> = {
  merchant: {
    name: 'Merchant server',
    description:
      'Called by the merchant’s own backend with `KASSA_MERCHANT_KEY`: what a customer will pay is decided here.',
  },
  browser: {
    name: 'Browser',
    description:
      'Called by the widget in the customer’s browser, which holds no credential: these routes answer only pages of the shop’s origins (CORS, `KASSA_ALLOWED_ORIGINS`), count requests per client address, and reach a payment only through its unguessable `statusToken`.',
  },
  operator: {
    name: 'Operator',
    description:
      'The merchant’s operators, each a person with a role (docs/operators.md): the extension with its device token, scripts with a personal API token, the sign-in page with its session. Each operation names the permission it needs (`x-kassa-permission`); a role without it gets 403 naming the permission.',
  },
  infrastructure: {
    name: 'Infrastructure',
    description:
      'For the machines around the proxy: container and load-balancer probes, the metrics scraper, the payment service’s webhook, and this document.',
  },
  events: {
    name: 'Merchant events',
    description:
      'What the proxy posts to the merchant’s `KASSA_EVENTS_URL`, signed per Standard Webhooks (docs/events.md).',
  },
};

const DESCRIPTION = `The server a merchant self-hosts: the only holder of upstream secrets.

- **Errors** are \`{"error": "<what is wrong>"}\` with a 4xx or 5xx status; every operation lists the ones it gives.
  A 429 or 503 carries \`Retry-After\` (seconds); a 401 carries \`WWW-Authenticate\` naming the credential.
- **Credentials** are bearer tokens: \`KASSA_MERCHANT_KEY\` for the merchant's server; for operators, each
  person's own credential (a personal API token \`kassa_pat_…\`, the extension's device token \`kassa_dev_…\`, or
  the sign-in page's session cookie), whose role gives the permission each operator operation names.
  Browser routes take none (see the Browser tag).
- **Retries**: \`POST /api/payments\` requires an \`Idempotency-Key\` and \`POST /api/checkouts\` accepts one; a retry
  with the same key gets the first answer.
- **Events** for the merchant's server are under \`webhooks\` (Standard Webhooks: verify before parsing).`;

const SECURITY_SCHEMES = {
  merchantKey: {
    type: 'http',
    scheme: 'bearer',
    description: '`KASSA_MERCHANT_KEY`, from the merchant’s server only: never in a browser.',
  },
  operatorToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An operator’s own credential: a personal API token (`kassa_pat_…`, made with `kassa-proxy operators add --token` or `POST /api/operator/tokens`) or the extension’s device token (`kassa_dev_…`, RFC 8628).',
  },
  operatorSession: {
    type: 'apiKey',
    in: 'cookie',
    name: '__Host-kassa_session',
    description:
      'The sign-in page’s session (`/operator`); every write with it also sends `X-Kassa-CSRF` from the proxy’s own origin.',
  },
  metricsToken: {
    type: 'http',
    scheme: 'bearer',
    description: '`KASSA_METRICS_TOKEN`, a Prometheus scraper’s own token.',
  },
  webhookSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'webhook-signature',
    description:
      'Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` with the bytes of `KASSA_EVENTS_SECRET` (the base64 after `whsec_`).',
  },
};

const SECURITY: Record<Access['auth'], unknown[]> = {
  merchantKey: [{ merchantKey: [] }],
  merchantKeyOptional: [{}, { merchantKey: [] }],
  operator: [{ operatorToken: [] }, { operatorSession: [] }],
  scraper: [{ metricsToken: [] }, { operatorToken: [] }],
  public: [],
};

const INTERNAL_ERROR = 'Internal error: something failed in the proxy; it is logged with the request id';
const SERVER_REFUSAL = {
  description:
    'Only from Node’s HTTP server, for a request it cannot read (400 malformed, 408 too slow, 431 headers over 16 KiB), without a body: the route itself refuses nothing',
};
const tooLarge = (path: string) =>
  `The body is larger than ${path.startsWith('/hooks/') ? 64 : 32} KiB. The connection stays open for the next request, unless the body was over 4 MiB or chunked: then the answer says \`Connection: close\``;
const NOT_JSON = 'The body is not sent as `application/json` (UTF-8): the message names the type expected';

export interface DocumentOptions {
  version: string;
  /** The operation tables of every routes module the app mounts. */
  operations: readonly ApiOperations[];
  /**
   * Named schemas that depend on this proxy's settings (the currency of open amounts), in place of the
   * ones generated from the zod schemas: the document says what this proxy accepts.
   */
  configured?: Record<string, JsonSchema>;
}

/** The document, without `servers` (each answer adds the address it is reached at: withServer). */
export function openApiDocument({ version, operations, configured = {} }: DocumentOptions): OpenApiDocument {
  const components = new SchemaComponents();
  const paths: OpenApiDocument['paths'] = {};
  for (const table of operations) {
    for (const [key, operation] of Object.entries(table)) {
      const [method, path] = key.split(' ') as [string, string];
      paths[path] ??= {};
      if (paths[path][method.toLowerCase()]) throw new Error(`${key} is described twice`);
      paths[path][method.toLowerCase()] = operationObject(method, path, operation, components);
    }
  }
  const webhooks = Object.fromEntries(
    (Object.keys(EVENT_SCHEMAS) as KassaEventType[]).map((type) => [type, webhookObject(type, components)]),
  );
  for (const [name, schema] of Object.entries(configured)) {
    if (!components.schemas[name]) throw new Error(`no schema named ${name} to configure`);
    components.schemas[name] = schema;
  }
  const error = components.of(errorSchema, 'output');
  if (error.$ref !== '#/components/schemas/Error') throw new Error('the error schema must be named Error');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Kassa proxy',
      version,
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: Object.values(TAGS),
    paths,
    webhooks,
    components: { schemas: components.schemas, securitySchemes: SECURITY_SCHEMES },
  };
}

/** The document as served at one address: KASSA_PUBLIC_URL, the request's loopback origin, or relative. */
export function withServer(document: OpenApiDocument, url: string | undefined): OpenApiDocument {
  const { openapi, info, ...rest } = document;
  const server = url
    ? { url, description: 'This proxy' }
    : { url: '/', description: 'This proxy (set KASSA_PUBLIC_URL for its full address)' };
  return { openapi, info, servers: [server], ...rest };
}

function operationObject(method: string, path: string, operation: ApiOperation, components: SchemaComponents) {
  const { access } = operation;
  const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name!);
  const described = Object.keys(operation.params ?? {});
  if (pathParams.join() !== described.join())
    throw new Error(`${method} ${path}: describe its path parameters (${pathParams.join(', ')}) in params`);
  const parameters = [
    ...pathParams.map((name) => ({
      name,
      in: 'path',
      required: true,
      description: operation.params![name]!.description,
      schema: { type: 'string' },
      example: operation.params![name]!.example,
    })),
    ...Object.entries(operation.query ?? {}).map(([name, { description, schema }]) => ({
      name,
      in: 'query',
      required: false,
      description,
      schema: components.of(schema, 'input'),
    })),
    ...(operation.idempotencyKey
      ? [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: operation.idempotencyKey === 'required',
            description:
              'The same for every retry of one request: a retry gets the first answer. Reused for a different request: 422.',
            schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN.source },
            example: 'order-1042-attempt-1',
          },
        ]
      : []),
  ];
  const withBody =
    method !== 'GET' && (path.startsWith('/api/') || path.startsWith('/hooks/') || path.startsWith('/operator/'));
  const errors: Partial<Record<ErrorStatus, string>> = {
    ...(withBody ? { 413: tooLarge(path) } : {}),
    ...(access.auth === 'operator' ? { 401: OPERATOR_UNAUTHENTICATED } : {}),
    // The payment service's webhook is read as text whatever its type (its content type is not documented).
    ...(withBody && path.startsWith('/api/') ? { 415: NOT_JSON } : {}),
    ...operation.errors,
    500: INTERNAL_ERROR,
  };
  const permission = access.auth === 'operator' ? access.permission : undefined;
  const refusal =
    permission !== undefined && permission !== 'self' ? permissionRefusal(permission, components) : undefined;
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(operation.responses))
    responses[status] = answerObject(answer, components);
  for (const [status, description] of Object.entries(errors)) {
    if (responses[status]) throw new Error(`${method} ${path}: ${status} is both an answer and an error`);
    if (status === '403' && refusal) {
      responses[status] = { ...refusal, description: `${refusal.description}; ${description}` };
      continue;
    }
    responses[status] = {
      description,
      ...headersObject(ERROR_HEADERS[Number(status) as ErrorStatus]),
      content: {
        'application/json': { schema: components.of(errorSchema, 'output'), example: { error: description } },
      },
    };
  }
  if (refusal && !responses['403']) responses['403'] = refusal;
  // Node's HTTP server refuses what it cannot read before any route runs; a route that never refuses
  // anything itself (a probe) still has those answers.
  if (!Object.keys(responses).some((status) => status.startsWith('4'))) responses['4XX'] = SERVER_REFUSAL;
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description:
      access.auth === 'public'
        ? `${operation.description}\n\n**No credential:** ${access.because}`
        : permission !== undefined
          ? `${operation.description}\n\n**Permission:** ${permissionSentence(permission)}.`
          : operation.description,
    tags: [operation.audience].flat().map((audience) => TAGS[audience].name),
    security: SECURITY[access.auth],
    ...(permission !== undefined ? { 'x-kassa-permission': describePermission(permission) } : {}),
    ...(operation.deprecated ? { deprecated: true } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(operation.request
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: components.of(operation.request.schema, 'input'),
                example: operation.request.example,
              },
            },
          },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
  };
}

const OPERATOR_UNAUTHENTICATED =
  'No operator credential, or one that is unknown, expired, revoked, or whose owner is suspended';

/** The roles a permission is given to, in words: `orders:write` (finance, admin). */
function permissionSentence(permission: RoutePermission): string {
  if (permission === 'self') return describePermission(permission);
  const roles = ROLES.filter((role) => allows(role, permission));
  return `\`${describePermission(permission)}\` (${roles.join(', ')})`;
}

/** The 403 of an operator operation whose permission not every role has. */
function permissionRefusal(permission: Exclude<RoutePermission, 'self'>, components: SchemaComponents) {
  if (ROLES.every((role) => allows(role, permission))) return undefined;
  const missing = typeof permission === 'string' ? permission : permission[0];
  const role = ROLES.find((each) => !ROLE_PERMISSIONS[each].has(missing))!;
  return {
    description: `The caller’s role lacks ${describePermission(permission)}`,
    content: {
      'application/json': {
        schema: components.of(permissionRefusalSchema, 'output'),
        example: {
          error: `This needs the permission ${missing}; your role ${role} does not have it`,
          permission: missing,
        },
      },
    },
  };
}

function answerObject(answer: Answer, components: SchemaComponents) {
  const content: Record<string, unknown> = {};
  if (answer.json)
    content['application/json'] = {
      schema: components.of(answer.json.schema, 'output'),
      example: answer.json.example,
    };
  for (const text of [answer.text ?? []].flat())
    content[text.contentType] = {
      schema: { type: 'string', ...(text.description ? { description: text.description } : {}) },
      ...(text.example === undefined ? {} : { example: text.example }),
    };
  return {
    description: answer.description,
    ...headersObject(answer.headers),
    ...(Object.keys(content).length ? { content } : {}),
  };
}

function headersObject(headers: Answer['headers']) {
  if (!headers) return {};
  return {
    headers: Object.fromEntries(
      Object.entries(headers).map(([name, header]) => [
        name,
        {
          description: header.description,
          ...(header.required ? { required: true } : {}),
          schema: header.schema ?? { type: 'string' },
        },
      ]),
    ),
  };
}

const SIGNATURE_HEADERS = {
  'webhook-id': ['The event’s id, the same on every attempt: de-duplicate on it', 'evt_mM1y2nVYPq4DqX1dZ5t3Cg'],
  'webhook-timestamp': [
    'When this attempt was signed, in Unix seconds: refuse one more than five minutes from your clock',
    '1795456860',
  ],
  'webhook-signature': [
    '`v1,<base64 HMAC-SHA256>`; two of them, separated by a space, while the secret is being rotated',
    'v1,vXoftJjMLHArouK7BEiTiMz76k2U9hDBlnrJWEq/hyw=',
  ],
} as const;

function webhookObject(type: KassaEventType, components: SchemaComponents) {
  const schema = EVENT_SCHEMAS[type];
  const [object, change] = type.split('.') as [string, string];
  return {
    post: {
      operationId: `${object}${change[0]!.toUpperCase()}${change.slice(1)}Event`,
      summary: type,
      description: `${schema.description ?? type}\n\nVerify the signature on the body exactly as received, then parse it.`,
      tags: [TAGS.events.name],
      security: [{ webhookSignature: [] }],
      parameters: Object.entries(SIGNATURE_HEADERS).map(([name, [description, example]]) => ({
        name,
        in: 'header',
        required: true,
        description,
        schema: { type: 'string' },
        example,
      })),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: components.of(schema, 'output'), example: EVENT_EXAMPLES[type] } },
      },
      responses: {
        '2XX': { description: 'Received. Answer within 15 seconds; do slow work afterwards.' },
        '410': {
          description:
            'Gone: send no more. The event is not sent again, and after 3 in a row the endpoint is disabled until an operator enables it.',
        },
        default: {
          description:
            'Anything else, or no answer within 15 seconds: the event is sent again on schedule (after a 429’s or 503’s Retry-After, up to an hour, when that is later).',
        },
      },
    },
  };
}
