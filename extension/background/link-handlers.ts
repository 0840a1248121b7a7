/**
 * The requests about payment links: each one call to the proxy's operator routes for links
 * (`/api/operator/links`), its answer checked against the proxy's schema; a new link is checked first
 * with the proxy's own schema, whose words name the field. The proxy judges every permission
 * (links:read, links:manage) and audits every change.
 */
import { describeZodError } from '../../lib/zod-message.ts';
import {
  linkListSchema,
  linkPaymentListSchema,
  linkSchema,
  newLinkSchema,
  type LinkView,
} from '../../schemas/links.ts';
import { operatorCall, operatorFile } from './operator-api.ts';
import { proxyAnswer, query } from './proxy-answer.ts';
import { RefusedRequest, type UiHandlers } from './ui-requests.ts';

const BASE = '/api/operator/links';
const link = (code: string, action = '') => `${BASE}/${encodeURIComponent(code)}${action}`;
/** Links a page of the view shows, and the proxy's pages read at most to fill one when filtered by status. */
const PAGE = 50;
const FILTERED_READ = 200;
const FILTERED_PAGES = 5;
/** A QR code's SVG is a few kilobytes; anything much larger is not one. */
const QR_MAX_CHARS = 256 * 1024;

export const linkHandlers = {
  'links.list': async ({ status, cursor }) => {
    if (!status) return proxyAnswer(linkListSchema, await operatorCall(`${BASE}${query({ limit: PAGE, cursor })}`));
    // The proxy lists every link: the worker keeps those whose status is asked, a few pages at a time.
    const found: LinkView[] = [];
    let next = cursor ?? null;
    for (let read = 0; read < FILTERED_PAGES && found.length < PAGE; read++) {
      const page = proxyAnswer(
        linkListSchema,
        await operatorCall(`${BASE}${query({ limit: FILTERED_READ, cursor: next ?? undefined })}`),
      );
      found.push(...page.links.filter((candidate) => candidate.status === status));
      next = page.nextCursor;
      if (!next) break;
    }
    return { links: found, nextCursor: next };
  },
  'links.get': async ({ code }) => proxyAnswer(linkSchema, await operatorCall(link(code))),
  'links.create': async (request) => {
    const parsed = newLinkSchema.safeParse(request.link);
    if (!parsed.success) throw new RefusedRequest(describeZodError(parsed.error));
    return proxyAnswer(linkSchema, await operatorCall(BASE, { method: 'POST', body: request.link }));
  },
  'links.move': async ({ code, move }) =>
    proxyAnswer(linkSchema, await operatorCall(link(code, `/${move}`), { method: 'POST' })),
  'links.payments': async ({ code, cursor }) =>
    proxyAnswer(linkPaymentListSchema, await operatorCall(link(code, `/payments${query({ limit: PAGE, cursor })}`))),
  'links.export': async ({ code }) => {
    const file = await operatorFile(link(code, '/payments/export'), 'text/csv');
    return { filename: file.filename.endsWith('.csv') ? file.filename : `${file.filename}.csv`, csv: file.text };
  },
  'links.qr': async ({ code }) => {
    const { text } = await operatorFile(`/l/${encodeURIComponent(code)}/qr.svg`, 'image/svg+xml');
    if (text.length > QR_MAX_CHARS || !/^\s*(<\?xml[^>]*>\s*)?<svg[\s>]/.test(text))
      throw new Error('The proxy answered something other than a QR code: is it up to date?');
    // Shown by an <img>, which runs nothing an SVG may hold.
    return { svg: `data:image/svg+xml,${encodeURIComponent(text)}` };
  },
} satisfies Partial<UiHandlers>;
