/**
 * The messages between the extension's own pages (popup, side panel, approval window) and its
 * service worker, which owns the settings, the vault and every call to the proxy. The service worker
 * parses each request with `uiRequestSchema` and answers only senders that are pages of this
 * extension; the pages parse each answer with `uiResponseSchema` (and the proxy's data with the
 * schemas of `schemas/`). Messages never carry the device token back, and never a private key:
 * the recovery phrase of a new key is shown once, right after it is made, and never again.
 */
import { z } from 'zod';
import {
  EVENT_STATUSES,
  EVENT_TYPES,
  type EventDetail,
  type EventList,
  type EventSummary,
  type redeliverResultSchema,
} from '../schemas/events.ts';
import { PURCHASE_STATES, type OperatorPurchase, type PurchaseDetail, type PurchaseList } from '../schemas/onramp.ts';
import {
  ORDER_STATUSES,
  type CreateOrderResponse,
  type deleteOrderResponseSchema,
  type Order,
  type UpdateOrderResponse,
} from '../schemas/orders.ts';
import type { PurchaseStatement, SiweMessage } from '../lib/siwe.ts';
import type { EventEndpointView } from '../schemas/event-endpoint.ts';
import type { Health, PaymentList, resolvedPaymentSchema, unverifiableListSchema } from '../schemas/proxy-api.ts';
import type { ChainEntry } from '../schemas/reforge.ts';
import { ACCOUNT_REQUESTS, isoMoment, type AccountAnswers } from './account-messages.ts';
import { INTEGRATION_ACTIONS, INTEGRATION_REQUESTS, type IntegrationAnswers } from './integration-messages.ts';
import { LINK_ACTIONS, LINK_REQUESTS, type LinkAnswers } from './link-messages.ts';
import type { MoneyAnswer } from './operator-messages.ts';
import {
  AUTO_LOCK_MINUTES,
  NETWORKS,
  PASSWORD_MIN,
  UI_LANGUAGES,
  type LanguageChoice,
  type Network,
} from './channels.ts';

export {
  APPROVAL_PORT,
  AUTO_LOCK_MINUTES,
  NETWORKS,
  PASSWORD_MIN,
  PAYMENTS_PORT,
  SESSION_PORT,
  UI_CHANNEL,
  UI_LANGUAGES,
  type LanguageChoice,
  type Network,
  type UiLanguage,
} from './channels.ts';

const password = z
  .string({ error: 'password is required' })
  .min(PASSWORD_MIN, `The password must be at least ${PASSWORD_MIN} characters`)
  .max(256, 'The password must be at most 256 characters');
const orderId = z.string().min(1, 'orderId is required').max(200);
const decimalText = z.string().max(64);
const eventId = z.string().min(1, 'The event id is required').max(200);
const purchaseId = z.string().min(1, 'The purchase id is required').max(100);
const amountText = z
  .string()
  .max(32)
  .regex(/^\d+(\.\d+)?$/, 'Enter amounts as numbers such as 10.50')
  .optional();

/** The operator's search of payments, as the proxy's `GET /api/payments` and its CSV export take it. */
export const paymentSearchSchema = z.object({
  status: z.string().max(32).optional(),
  checkoutId: z.string().max(100).optional(),
  reference: z.string().max(200).optional(),
  /** Created at or after (ISO 8601). */
  from: isoMoment,
  /** Created before (ISO 8601). */
  to: isoMoment,
  minAmount: amountText,
  maxAmount: amountText,
});
export type PaymentSearch = z.infer<typeof paymentSearchSchema>;

/** The CSV export as the worker hands it to a page, which saves it as a file. */
export interface PaymentExport {
  filename: string;
  csv: string;
}

export const uiRequestSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('settings.get') }),
  z.object({ kind: z.literal('settings.save'), proxyUrl: z.string().max(2048), network: z.enum(NETWORKS) }),
  z.object({ kind: z.literal('settings.test') }),
  /** Whether the proxy runs on the sandbox (`GET /api/config`): the wallet then offers the sandbox's test account. */
  z.object({ kind: z.literal('settings.environment') }),
  z.object({ kind: z.literal('language.get') }),
  z.object({ kind: z.literal('language.set'), language: z.enum(['auto', ...UI_LANGUAGES]) }),
  paymentSearchSchema.extend({
    kind: z.literal('payments.list'),
    limit: z.number().int().min(1).max(200).optional(),
    cursor: z.string().max(200).optional(),
  }),
  paymentSearchSchema.extend({ kind: z.literal('payments.export') }),
  z.object({ kind: z.literal('payments.unverifiable') }),
  z.object({
    kind: z.literal('payments.resolve'),
    transactionId: z.string().min(1).max(200),
    status: z.enum(['COMPLETED', 'FAILED']),
    note: z.string().trim().min(3, 'Write a note of at least 3 characters').max(500),
  }),
  z.object({ kind: z.literal('orders.list'), filterStatus: z.enum(ORDER_STATUSES).optional() }),
  z.object({
    kind: z.literal('events.list'),
    status: z.enum(EVENT_STATUSES).optional(),
    type: z.enum(EVENT_TYPES).optional(),
    limit: z.number().int().min(1).max(200).optional(),
  }),
  z.object({ kind: z.literal('events.get'), id: eventId }),
  z.object({ kind: z.literal('events.redeliver'), id: eventId }),
  z.object({ kind: z.literal('events.enableEndpoint'), id: z.string().min(1).max(200) }),
  // Only failed events are replayed in bulk, from a moment the operator picks.
  z.object({ kind: z.literal('events.redeliverFailed'), since: z.iso.datetime({ offset: true }) }),
  // The order is validated in full (createOrderRequestSchema) by the page and again by the worker.
  z.object({ kind: z.literal('orders.create'), order: z.record(z.string(), z.unknown()) }),
  z.object({
    kind: z.literal('orders.update'),
    orderId,
    amount: decimalText.optional(),
    orderStatus: z.enum(ORDER_STATUSES).optional(),
  }),
  z.object({ kind: z.literal('orders.delete'), orderId }),
  z.object({
    kind: z.literal('purchases.list'),
    state: z.enum(PURCHASE_STATES).optional(),
    limit: z.number().int().min(1).max(200).optional(),
    cursor: z.string().max(200).optional(),
  }),
  z.object({ kind: z.literal('purchases.get'), id: purchaseId }),
  z.object({ kind: z.literal('purchases.retryMint'), id: purchaseId }),
  z.object({
    kind: z.literal('purchases.refund'),
    id: purchaseId,
    note: z.string().trim().min(3, 'Write a note of at least 3 characters').max(500),
  }),
  z.object({ kind: z.literal('chains.list') }),
  ...ACCOUNT_REQUESTS,
  ...INTEGRATION_REQUESTS,
  ...LINK_REQUESTS,
  z.object({ kind: z.literal('vault.status') }),
  z.object({ kind: z.literal('vault.create'), password }),
  z.object({
    kind: z.literal('vault.import'),
    password,
    privateKey: z.string().max(200).optional(),
    mnemonic: z.string().max(1000).optional(),
  }),
  /** The sandbox's public test account as the key: only while the proxy runs on the sandbox. */
  z.object({ kind: z.literal('vault.importSandbox'), password }),
  z.object({ kind: z.literal('vault.unlock'), password: z.string().max(256) }),
  z.object({ kind: z.literal('vault.lock') }),
  z.object({ kind: z.literal('vault.remove'), password: z.string().max(256) }),
  z.object({
    kind: z.literal('vault.autoLock'),
    minutes: z.number().int().min(AUTO_LOCK_MINUTES.min).max(AUTO_LOCK_MINUTES.max),
  }),
  z.object({ kind: z.literal('wallet.switchChain'), chainId: z.number().int().positive() }),
  /** `fresh`: read the chains now; else the last reading kept (if any). */
  z.object({ kind: z.literal('wallet.activity'), fresh: z.boolean() }),
  z.object({ kind: z.literal('connections.revoke'), origin: z.string().max(2048) }),
  z.object({ kind: z.literal('connections.unblock'), origin: z.string().max(2048) }),
  z.object({ kind: z.literal('approval.get'), id: z.string().max(100) }),
  z.object({
    kind: z.literal('approval.answer'),
    id: z.string().max(100),
    approve: z.boolean(),
    password: z.string().max(256).optional(),
    /** With a rejection: refuse every further request of the site until it is unblocked. */
    block: z.boolean().optional(),
  }),
]);
export type UiRequest = z.infer<typeof uiRequestSchema>;
export type UiKind = UiRequest['kind'];
export type UiRequestOf<K extends UiKind> = Extract<UiRequest, { kind: K }>;

/**
 * What the service worker answers to each kind of request: with `uiRequestSchema`, all that pages
 * and the worker say to each other. The worker's handler table (background/ui-requests.ts) and the
 * pages' `ask` (ui/client.ts) are both typed by it.
 */
export interface UiAnswers extends AccountAnswers, IntegrationAnswers, LinkAnswers {
  'settings.get': SettingsView;
  'settings.save': SettingsView;
  'settings.test': ConnectionTest;
  /** Null without a proxy, or one that does not answer as documented. */
  'settings.environment': 'sandbox' | 'live' | null;
  'language.get': LanguageChoice;
  'language.set': LanguageChoice;
  'payments.list': PaymentList;
  'payments.export': PaymentExport;
  'payments.unverifiable': z.infer<typeof unverifiableListSchema>;
  'payments.resolve': z.infer<typeof resolvedPaymentSchema>;
  'orders.list': Order[];
  // A money action: done at once below the merchant's threshold, else a request a second person decides.
  'orders.create': MoneyAnswer<CreateOrderResponse>;
  'orders.update': MoneyAnswer<UpdateOrderResponse>;
  'orders.delete': z.infer<typeof deleteOrderResponseSchema>;
  'events.list': EventList;
  'events.get': EventDetail;
  'events.redeliver': EventSummary;
  'events.enableEndpoint': EventEndpointView;
  'events.redeliverFailed': z.infer<typeof redeliverResultSchema>;
  'purchases.list': PurchaseList;
  'purchases.get': PurchaseDetail;
  'purchases.retryMint': MoneyAnswer<OperatorPurchase>;
  'purchases.refund': MoneyAnswer<OperatorPurchase>;
  'chains.list': ChainEntry[];
  'vault.status': WalletStatus;
  'vault.create': CreatedKey;
  'vault.import': { address: string };
  'vault.importSandbox': { address: string };
  'vault.unlock': WalletStatus;
  'vault.lock': WalletStatus;
  'vault.remove': WalletStatus;
  'vault.autoLock': WalletStatus;
  'wallet.switchChain': WalletStatus;
  /** Null without a key. */
  'wallet.activity': Activity | null;
  'connections.revoke': WalletStatus;
  'connections.unblock': WalletStatus;
  'approval.get': ApprovalView;
  'approval.answer': { done: true };
}

/**
 * The requests a person makes by acting (a click, a form sent): only these count as use of Kassa for
 * the idle lock. Reads (lists, status, the Wallet tab's balances and activity, polled every few seconds
 * while a transfer is under way) are not activity: a tab left open must not keep the key unlocked.
 */
export const USER_ACTIONS: ReadonlySet<UiKind> = new Set<UiKind>([
  'settings.save',
  'settings.test',
  'language.set',
  'payments.export',
  'payments.resolve',
  'events.redeliver',
  'events.enableEndpoint',
  'events.redeliverFailed',
  'orders.create',
  'orders.update',
  'orders.delete',
  'purchases.retryMint',
  'purchases.refund',
  'vault.create',
  'vault.import',
  'vault.importSandbox',
  'vault.unlock',
  'vault.remove',
  'vault.autoLock',
  'wallet.switchChain',
  'connections.revoke',
  'connections.unblock',
  'approval.answer',
  'session.signIn',
  'session.cancelSignIn',
  'session.openApprovalPage',
  'session.signOut',
  'approvals.approve',
  'approvals.reject',
  'approvals.cancel',
  'team.invite',
  'team.update',
  'team.remove',
  'team.revoke',
  'audit.export',
  ...INTEGRATION_ACTIONS,
  ...LINK_ACTIONS,
]);

/** Every answer of the service worker to a page. */
export const uiResponseSchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({
    ok: z.literal(false),
    error: z.string(),
    status: z.number().optional(),
    /** With a 403: the permission the operator's role lacks (`orders:write`), for the page to name in words. */
    permission: z.string().optional(),
  }),
]);
export type UiResponse = z.infer<typeof uiResponseSchema>;

/** What the settings view shows. */
export interface SettingsView {
  proxyUrl: string | null;
  network: Network;
}

export type VaultState = 'empty' | 'locked' | 'unlocked';

export interface WalletStatus {
  state: VaultState;
  address: string | null;
  autoLockMinutes: number;
  /** When a wrong password was given: seconds until the next try is allowed. */
  retryInSeconds: number;
  /** The chain the wallet is on (null while the proxy's chain listing cannot be read). */
  chainId: number | null;
  connectedOrigins: string[];
  /** Sites the user blocked from an approval window: their requests are refused without asking. */
  blockedOrigins: string[];
}

/** What the Settings tab's "Test connection" found: the proxy's health when signed in, else its chain listing. */
export type ConnectionTest = { kind: 'operator'; health: Health } | { kind: 'public'; chains: number };

/** A transfer of Kassa's account, as the chains show it. */
export interface ActivityTransfer {
  hash: string;
  burnId: string;
  sourceChainId: number;
  destinationChainId: number;
  symbol: string;
  /** Whole tokens. */
  amount: string;
  sentAt: number;
  state: 'confirmed' | 'delayed' | 'arrived' | 'refunded';
  destinationHash?: string;
  refundHash?: string;
}

/** The wallet tab's balances (`amount` null where the chain cannot be read) and transfers. */
export interface Activity {
  account: string;
  balances: Array<{ chainId: number; chain: string; symbol: string; amount: string | null }>;
  transfers: ActivityTransfer[];
  readAt: number;
}

export interface CreatedKey {
  address: string;
  /** Shown once, to be written down; the vault keeps it encrypted. */
  mnemonic: string;
}

/** What every approval window shows besides its request. */
interface ApprovalCommon {
  id: string;
  origin: string;
  /** The asking page's language (its `<html lang>`), which the window speaks when Kassa does. */
  lang?: string;
  /** Requests waiting behind this one (one window at a time). */
  queued: number;
  /** Whether the user rejected this site before: the window then offers to block it. */
  rejectedBefore: boolean;
}

export type ApprovalView =
  | (ApprovalCommon & { kind: 'connect'; state: VaultState; address: string | null })
  | (ApprovalCommon & {
      kind: 'transaction';
      from: string;
      /** The unsigned EIP-1559 transaction that approving signs (nonce filled in at signing). */
      tx: string;
      chains: ChainEntry[];
      /** The fee is unusually high (the page's, above Kassa's own); `usual`: Kassa's own at most, in the native token. */
      fee: { high: boolean; usual: string };
    })
  | (ApprovalCommon & {
      kind: 'proof';
      from: string;
      /** The message exactly as approving signs it. */
      text: string;
      message: SiweMessage;
      statement: PurchaseStatement;
      /** The listed chain its Chain ID names. */
      chain: { chainId: number; name: string };
    });

/** On the payments port: a payment's new status (the proxy's `status` event), or the stream's state. */
export const paymentsPortMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('status'), payment: z.record(z.string(), z.unknown()) }),
  z.object({
    type: z.literal('stream'),
    state: z.enum(['live', 'reconnecting', 'unavailable']),
    error: z.string().optional(),
  }),
]);
export type PaymentsPortMessage = z.infer<typeof paymentsPortMessageSchema>;
