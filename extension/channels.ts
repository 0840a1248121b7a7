/**
 * The names and limits shared by the extension's pages and its service worker, apart from the
 * message schemas (messages.ts): those import zod and the order service's schemas (with ethers),
 * which the popup's shell, rendering at once, does not load before its first render.
 */

export const UI_CHANNEL = 'kassa-ui';
/** The popup and side panel hold this port open to receive live payment statuses. */
export const PAYMENTS_PORT = 'kassa-payments';
/**
 * The popup and side panel hold this port open to hear of the operator's session (signed in, signing
 * in, signed out, permissions): the worker posts it at once and on every change, and follows the
 * proxy's live stream while one is open, so that a revoked device is known within a second.
 */
export const SESSION_PORT = 'kassa-session';
/** The approval window holds this port open: it keeps the service worker (and the request) alive. */
export const APPROVAL_PORT = 'kassa-approval';

export const NETWORKS = ['test', 'main'] as const;
export type Network = (typeof NETWORKS)[number];

export const PASSWORD_MIN = 8;

/** The languages of the extension's pages, the widget's five; `auto` follows the browser. */
export const UI_LANGUAGES = ['en', 'de', 'fr', 'es', 'nl'] as const;
export type UiLanguage = (typeof UI_LANGUAGES)[number];
export type LanguageChoice = UiLanguage | 'auto';
export const AUTO_LOCK_MINUTES = { min: 1, max: 1440, default: 15 } as const;
