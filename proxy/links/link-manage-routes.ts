/**
 * Managing links, the same for the merchant's server (`/api/links`, a merchant key with `links:manage`)
 * and for operators (`/api/operator/links`, by permission): make, list, read, pause, resume, end,
 * a link's payments and their CSV. One table of operations and one set of handlers serve both, so the
 * two never drift; each audience brings its guard and who the audit names.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { csvLine } from '../../lib/csv.ts';
import { describeZodError } from '../../lib/zod-message.ts';
import {
  linkListQuerySchema,
  linkListSchema,
  linkPageQuerySchema,
  linkPaymentListSchema,
  linkSchema,
  newLinkSchema,
} from '../../schemas/links.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { jsonRequest } from '../http/json-request.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import {
  queryOf,
  type Access,
  type ApiOperations,
  type Audience,
  type OperationKey,
} from '../http/openapi/operation.ts';
import { BAD_BODY, STORE_DOWN } from '../http/openapi/problems.ts';
import type { audited } from '../operator/dual-control.ts';
import { publicOrigin } from '../payments/return-url.ts';
import type { ProxyServices } from '../services.ts';
import type { LinkCreator, LinkRecord } from '../state/links.ts';
import { linkExample, linkListExample, linkPaymentExample, newLinkExample } from './link-examples.ts';
import { linkPaymentView, linkView } from './link-views.ts';
import type { LinkMove, Links } from './links.ts';

/** Rows read from the store per page of an export. */
const EXPORT_PAGE = 500;
export const LINK_CSV_COLUMNS = [
  'number',
  'reference',
  'amount',
  'currencyCode',
  'state',
  'createdAt',
  'settledAt',
  'checkoutId',
  'transactionId',
] as const;

export interface LinkAudience {
  /** `/api/links` or `/api/operator/links`. */
  base: '/api/links' | '/api/operator/links';
  /** The guard of the operation at `key` of the table. */
  guard: (key: OperationKey) => MiddlewareHandler;
  /** Who is acting, as the link records its maker. */
  creator: (c: Context) => LinkCreator;
  /** Appends what was done to the audit trail, naming who did it. */
  audit: (c: Context, action: string, details: Parameters<typeof audited>[3]) => Promise<unknown>;
}

/** Mounts the management routes on `app` for one audience. */
export function mountLinkManagement(app: Hono, services: ProxyServices, links: Links, who: LinkAudience): void {
  const { base, guard } = who;
  const origin = (c: Context) => publicOrigin(services.config.publicUrl, c.req.url);
  const view = (c: Context, link: LinkRecord) => linkView(link, origin(c));
  const target = (code: string) => ({ type: 'link', id: code });
  const parsedQuery = <T>(c: Context, schema: { safeParse(value: unknown): z.ZodSafeParseResult<T> }) => {
    const query = schema.safeParse(c.req.query());
    if (!query.success) throw new HttpProblem(400, describeZodError(query.error));
    return query.data;
  };
  const page = (c: Context) => parsedQuery(c, linkPageQuerySchema);

  app.post(base, guard(`POST ${base}`), refusePrivateKeys({ freeText: ['title', 'description'] }), async (c) => {
    const made = await links.create(await jsonRequest(c, newLinkSchema), who.creator(c));
    const shown = view(c, made);
    await who.audit(c, 'link.created', { target: target(made.code), after: shown });
    return c.json(shown, 201);
  });

  app.get(base, guard(`GET ${base}`), async (c) => {
    const found = await links.list(parsedQuery(c, linkListQuerySchema));
    return c.json({ links: found.links.map((link) => view(c, link)), nextCursor: found.nextCursor });
  });

  app.get(`${base}/:code`, guard(`GET ${base}/{code}`), async (c) =>
    c.json(view(c, await links.get(c.req.param('code')))),
  );

  for (const move of ['pause', 'resume', 'end'] as const satisfies readonly LinkMove[])
    app.post(`${base}/:code/${move}`, guard(`POST ${base}/{code}/${move}`), async (c) => {
      const before = await links.get(c.req.param('code'));
      const moved = await links.move(before.code, move);
      await who.audit(c, `link.${MOVED[move]}`, {
        target: target(moved.code),
        before: { state: before.state },
        after: { state: moved.state },
      });
      return c.json(view(c, moved));
    });

  app.get(`${base}/:code/payments`, guard(`GET ${base}/{code}/payments`), async (c) => {
    const link = await links.get(c.req.param('code'));
    const found = await links.uses(link.code, page(c));
    return c.json({
      payments: found.uses.map((use) => linkPaymentView(use, link.currencyCode)),
      nextCursor: found.nextCursor,
    });
  });

  app.get(`${base}/:code/payments/export`, guard(`GET ${base}/{code}/payments/export`), async (c) => {
    const link = await links.get(c.req.param('code'));
    // Read whole before the answer starts: a store fault is a clean 503, never half a file.
    let body = csvLine(LINK_CSV_COLUMNS);
    let cursor: string | undefined;
    do {
      const found = await links.uses(link.code, { limit: EXPORT_PAGE, cursor });
      for (const use of found.uses) {
        const row = linkPaymentView(use, link.currencyCode);
        body += csvLine(LINK_CSV_COLUMNS.map((column) => row[column]));
      }
      cursor = found.nextCursor ?? undefined;
    } while (cursor);
    await who.audit(c, 'link.payments_exported', { target: target(link.code) });
    return c.body(body, 200, {
      'Content-Type': 'text/csv; charset=utf-8; header=present',
      'Content-Disposition': `attachment; filename="kassa-link-${link.code}.csv"`,
      'Cache-Control': 'no-store',
    });
  });
}

const MOVED: Record<LinkMove, string> = { pause: 'paused', resume: 'resumed', end: 'ended' };

/** The management operations of one audience: the same paths under its base, the same answers. */
export function linkManagementOperations(
  base: LinkAudience['base'],
  audience: {
    audience: Audience;
    /** The access of the operations that change links, and of those that read them. */
    manage: Access;
    read: Access;
    /** Prefixes the operationIds of the second audience (`operator…`). */
    idPrefix: '' | 'operator';
    /** What a caller without the right credential or permission is told. */
    errors: { 401: string; 403: (needed: string) => string };
  },
): ApiOperations {
  const id = (name: string) =>
    audience.idPrefix ? `${audience.idPrefix}${name[0]!.toUpperCase()}${name.slice(1)}` : name;
  const code = { code: { description: 'The link’s code, from createLink or listLinks', example: linkExample.code } };
  const pageQuery = {
    limit: 'How many per page (1 to 200, 50 by default)',
    cursor: 'Start after this nextCursor of the previous page',
  };
  const page = queryOf(linkPageQuerySchema.shape, pageQuery);
  const errorsFor = (access: Access) => ({
    401: audience.errors[401],
    403: audience.errors[403](access.auth === 'operator' ? String(access.permission) : 'links:manage'),
    503: STORE_DOWN,
  });
  const manage = { audience: audience.audience, access: audience.manage };
  const read = { audience: audience.audience, access: audience.read };
  const moves = Object.fromEntries(
    (['pause', 'resume', 'end'] as const).map((move) => [
      `POST ${base}/{code}/${move}`,
      {
        ...manage,
        operationId: id(`${move}Link`),
        summary: `${move[0]!.toUpperCase()}${move.slice(1)} a link`,
        description: MOVE_DESCRIPTION[move],
        params: code,
        responses: {
          200: {
            description: `The link, ${MOVED[move]}`,
            json: {
              schema: linkSchema,
              example: { ...linkExample, state: MOVED_STATE[move], status: MOVED_STATE[move] },
            },
          },
        },
        errors: {
          ...errorsFor(audience.manage),
          404: 'Unknown link',
          409: `The link’s state does not allow it (${MOVE_FROM[move]} only)`,
        },
      },
    ]),
  ) as ApiOperations;
  return {
    [`POST ${base}`]: {
      ...manage,
      operationId: id('createLink'),
      summary: 'Make a payment link',
      description:
        'A link customers pay by bank on its page (`url`): a fixed `amount`, or `openAmount` bounds within the shop’s KASSA_OPEN_AMOUNT (in its currency); a title and description they see; a reference, or a template whose `{n}` is each payment’s number; an optional expiry, cap on payments (`maxUses`: 1 for a single-use link) and cap on the total; the page’s language; and the shop page to return to (one of KASSA_RETURN_URLS), or none for the link’s receipt. The code is 144 random bits and carries nothing else.',
      request: { schema: newLinkSchema, example: newLinkExample },
      responses: {
        201: {
          description: 'Made',
          json: {
            schema: linkSchema,
            example: { ...linkExample, payments: { count: 0, total: '0', lastPaidAt: null } },
          },
        },
      },
      errors: {
        ...errorsFor(audience.manage),
        400: `${BAD_BODY}; or a value the shop’s settings do not allow (an open amount outside KASSA_OPEN_AMOUNT, a return URL not in KASSA_RETURN_URLS, a past expiry, a total cap no payment fits)`,
        403: `${audience.errors[403](audience.manage.auth === 'operator' ? String(audience.manage.permission) : 'links:manage')}; or open amounts are not enabled (KASSA_OPEN_AMOUNT)`,
      },
    },
    [`GET ${base}`]: {
      ...read,
      operationId: id('listLinks'),
      summary: 'List payment links',
      description:
        'Newest first, a page at a time, each with its count and total of payments and those under way; `kind=counter` lists only the counter payments operators asked for at a till, `kind=link` only the links to share.',
      query: queryOf(linkListQuerySchema.shape, {
        ...pageQuery,
        kind: 'Only links of this kind: `link` (to share) or `counter` (counter payments)',
      }),
      responses: { 200: { description: 'The links', json: { schema: linkListSchema, example: linkListExample } } },
      errors: { ...errorsFor(audience.read), 400: 'limit or cursor is malformed' },
    },
    [`GET ${base}/{code}`]: {
      ...read,
      operationId: id('getLink'),
      summary: 'Read a payment link',
      description: 'The link, with whether it can be paid now (`status`), its payments’ count, total and last time.',
      params: code,
      responses: { 200: { description: 'The link', json: { schema: linkSchema, example: linkExample } } },
      errors: { ...errorsFor(audience.read), 404: 'Unknown link' },
    },
    ...moves,
    [`GET ${base}/{code}/payments`]: {
      ...read,
      operationId: id('listLinkPayments'),
      summary: 'List a link’s payments',
      description:
        'Each customer who started paying the link, newest first: pending (at their bank, holding one of its uses), paid (with its transactionId) or released (ended unpaid, its use given back). Each is an ordinary payment, also in searchPayments.',
      params: code,
      query: page,
      responses: {
        200: {
          description: 'The payments',
          json: { schema: linkPaymentListSchema, example: { payments: [linkPaymentExample], nextCursor: null } },
        },
      },
      errors: { ...errorsFor(audience.read), 400: 'limit or cursor is malformed', 404: 'Unknown link' },
    },
    [`GET ${base}/{code}/payments/export`]: {
      ...read,
      operationId: id('exportLinkPayments'),
      summary: 'Export a link’s payments as CSV',
      description: 'Every payment of the link, newest first, as listLinkPayments gives them, in one CSV file.',
      params: code,
      responses: {
        200: {
          description: 'The CSV file',
          text: {
            contentType: 'text/csv',
            example: `${csvLine(LINK_CSV_COLUMNS)}${csvLine(LINK_CSV_COLUMNS.map((column) => linkPaymentExample[column]))}`,
          },
          headers: { 'Content-Disposition': { description: '`attachment; filename="kassa-link-<code>.csv"`' } },
        },
      },
      errors: { ...errorsFor(audience.read), 404: 'Unknown link' },
    },
  };
}

const MOVE_DESCRIPTION: Record<LinkMove, string> = {
  pause: 'The link takes no new payment until resumed; its page says it is paused. Payments under way go on.',
  resume: 'A paused link takes payments again.',
  end: 'The link takes no payment any more, for good; its page says it has ended. Payments under way go on.',
};
const MOVE_FROM: Record<LinkMove, string> = {
  pause: 'an active link',
  resume: 'a paused link',
  end: 'an active or paused link',
};
const MOVED_STATE = { pause: 'paused', resume: 'active', end: 'ended' } as const;
