/**
 * Kassa's service worker: the only part of the extension that holds the settings (proxy URL, operator
 * token), the vault, the connected origins and the approval flow. Pages of the extension talk to it
 * with runtime messages (extension/messages.ts); web pages only through the content script's port
 * (extension/page-messages.ts), as an EIP-1193 provider.
 */
import { describeZodError } from '../../lib/zod-message.ts';
import { operatorPurchaseSchema, purchaseDetailSchema, purchaseListSchema } from '../../schemas/onramp.ts';
import { eventDetailSchema, eventListSchema, eventSummarySchema, redeliverResultSchema } from '../../schemas/events.ts';
import {
  createOrderRequestSchema,
  orderListSchema,
  updateOrderRequestSchema,
  type Order,
} from '../../schemas/orders.ts';
import {
  resolvedPaymentSchema,
  unverifiableListSchema,
  type Health,
  type PaymentList,
} from '../../schemas/proxy-api.ts';
import { ProviderRpcError, RPC } from '../eip1193.ts';
import {
  APPROVAL_PORT,
  PAYMENTS_PORT,
  UI_CHANNEL,
  uiRequestSchema,
  type ConnectionTest,
  type LanguageChoice,
  type PaymentSearch,
  type UiRequest,
  type UiResponse,
  USER_ACTIONS,
  type WalletStatus,
} from '../messages.ts';
import { PROVIDER_PORT } from '../page-messages.ts';
import { keepActivity, keptActivity, readActivity } from './activity.ts';
import { approvalView } from './approval-view.ts';
import { answerApproval, pendingApproval, rejectWhere, windowClosed } from './approvals.ts';
import { currentChain, forgetChains, listChains } from './chains.ts';
import { connectedOrigins } from './connections.ts';
import { followPaymentEvents, operatorCall, operatorFile } from './operator-api.ts';
import { announceAccounts, forgetOrigin, moveToChain } from './provider.ts';
import { acceptProviderPort } from './provider-port.ts';
import { proxyEnvironment, sandboxAccountKey } from './sandbox-account.ts';
import { loadSettings, saveSettings, settingsView } from './settings.ts';
import { block, blockedOrigins, unblock } from './site-guard.ts';
import { KEYS, readLocal, restrictStorage, writeLocal } from './storage.ts';
import {
  AUTO_LOCK_ALARM,
  autoLockMinutes,
  createKey,
  importKey,
  lock,
  onLockChange,
  removeKey,
  retryInSeconds,
  setAutoLockMinutes,
  touch,
  unlock,
  vaultState,
} from './vault.ts';

const EXTENSION_ORIGIN = new URL(chrome.runtime.getURL('')).origin;
const STATUS_CHAIN_WAIT_MS = 3_000;

void restrictStorage();
onLockChange(() => void announceAccounts());

chrome.runtime.onStartup.addListener(() => void lock());
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === AUTO_LOCK_ALARM) void lock();
});
chrome.windows.onRemoved.addListener((windowId) => windowClosed(windowId));

/** A sender that is a page of this extension (popup, side panel, approval window), never a content script. */
function isExtensionPage(sender: chrome.runtime.MessageSender): boolean {
  return (
    sender.id === chrome.runtime.id && typeof sender.url === 'string' && new URL(sender.url).origin === EXTENSION_ORIGIN
  );
}

async function walletStatus(): Promise<WalletStatus> {
  const { state, address } = await vaultState();
  return {
    state,
    address,
    autoLockMinutes: await autoLockMinutes(),
    retryInSeconds: await retryInSeconds(),
    // A proxy that does not answer must not hold the wallet view up: the chain is then unknown.
    chainId:
      (
        await Promise.race([
          currentChain(),
          new Promise<undefined>((resolve) => setTimeout(resolve, STATUS_CHAIN_WAIT_MS)),
        ]).catch(() => undefined)
      )?.chainId ?? null,
    connectedOrigins: await connectedOrigins(),
    blockedOrigins: await blockedOrigins(),
  };
}

/** The user blocked a site from its approval window: disconnected, and its waiting requests rejected. */
async function blockOrigin(origin: string): Promise<void> {
  await block(origin);
  await forgetOrigin(origin);
  rejectWhere(
    (request) => request.origin === origin,
    new ProviderRpcError(RPC.unauthorized, 'The user blocked this site in Kassa'),
  );
}

function query(values: Record<string, string | number | undefined>): string {
  const entries = Object.entries(values).filter(
    (entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '',
  );
  return entries.length ? `?${new URLSearchParams(entries.map(([name, value]) => [name, String(value)]))}` : '';
}

/** The search fields of a request, in the order the proxy's query shows them. */
function searchOf(request: PaymentSearch): PaymentSearch {
  const { status, checkoutId, reference, from, to, minAmount, maxAmount } = request;
  return { status, checkoutId, reference, from, to, minAmount, maxAmount };
}

class InvalidInput extends Error {}

/** The proxy's answer as its schema says, or a plain refusal (a proxy too old for the route, say). */
function proxyAnswer<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
  value: unknown,
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error('The proxy answered something other than what it documents: is it up to date?');
  return parsed.data;
}

async function handleUi(request: UiRequest): Promise<unknown> {
  switch (request.kind) {
    case 'settings.get':
      return settingsView(await loadSettings());
    case 'settings.save': {
      const view = await saveSettings(request);
      forgetChains();
      return view;
    }
    case 'settings.test': {
      // With a token entered for this proxy: its health; without: its public chain listing (all the wallet needs).
      if (settingsView(await loadSettings()).tokenSet)
        return { kind: 'operator', health: await operatorCall<Health>('/api/health') } satisfies ConnectionTest;
      forgetChains();
      return { kind: 'public', chains: (await listChains()).length } satisfies ConnectionTest;
    }
    case 'settings.environment':
      return proxyEnvironment();
    case 'language.get':
      return (await readLocal<LanguageChoice>(KEYS.language)) ?? 'auto';
    case 'language.set':
      await writeLocal(KEYS.language, request.language);
      return request.language;
    case 'payments.list':
      return operatorCall<PaymentList>(
        `/api/payments${query({ ...searchOf(request), limit: request.limit, cursor: request.cursor })}`,
      );
    case 'payments.export': {
      const file = await operatorFile(`/api/payments/export${query(searchOf(request))}`, 'text/csv');
      return { filename: file.filename.endsWith('.csv') ? file.filename : `${file.filename}.csv`, csv: file.text };
    }
    case 'payments.unverifiable':
      return proxyAnswer(unverifiableListSchema, await operatorCall('/api/payments/unverifiable'));
    case 'payments.resolve':
      return proxyAnswer(
        resolvedPaymentSchema,
        await operatorCall(`/api/payments/resolutions/${encodeURIComponent(request.transactionId)}`, {
          method: 'POST',
          body: { status: request.status, note: request.note },
        }),
      );
    case 'orders.list':
      return orderListSchema.parse(
        await operatorCall<unknown>(`/api/orders${query({ filterStatus: request.filterStatus })}`),
      );
    case 'events.list':
      return proxyAnswer(
        eventListSchema,
        await operatorCall<unknown>(
          `/api/events${query({ status: request.status, type: request.type, limit: request.limit })}`,
        ),
      );
    case 'events.get':
      return proxyAnswer(
        eventDetailSchema,
        await operatorCall<unknown>(`/api/events/${encodeURIComponent(request.id)}`),
      );
    case 'events.redeliver':
      return proxyAnswer(
        eventSummarySchema,
        await operatorCall<unknown>(`/api/events/${encodeURIComponent(request.id)}/redeliver`, { method: 'POST' }),
      );
    case 'events.redeliverFailed':
      return proxyAnswer(
        redeliverResultSchema,
        await operatorCall<unknown>('/api/events/redeliver', {
          method: 'POST',
          body: { status: 'failed', since: request.since },
        }),
      );
    case 'orders.create': {
      const parsed = createOrderRequestSchema.safeParse(request.order);
      if (!parsed.success) throw new InvalidInput(describeZodError(parsed.error));
      const chains = await listChains();
      if (!chains.some((chain) => chain.chainId === parsed.data.chainId))
        throw new InvalidInput(`Chain ${parsed.data.chainId} is not in the proxy's chain listing`);
      const existing = await operatorCall<Order[]>('/api/orders');
      const taken = existing.find((order) => order.customerOrder === parsed.data.customerOrder);
      if (taken)
        throw new InvalidInput(
          `Customer order "${parsed.data.customerOrder}" is already used by order ${taken.orderId}`,
        );
      return operatorCall('/api/orders', { method: 'POST', body: parsed.data });
    }
    case 'orders.update': {
      const parsed = updateOrderRequestSchema.safeParse({ amount: request.amount, orderStatus: request.orderStatus });
      if (!parsed.success) throw new InvalidInput(describeZodError(parsed.error));
      return operatorCall(`/api/orders/${encodeURIComponent(request.orderId)}`, { method: 'PUT', body: parsed.data });
    }
    case 'orders.delete':
      return operatorCall(`/api/orders/${encodeURIComponent(request.orderId)}`, { method: 'DELETE' });
    case 'purchases.list':
      return proxyAnswer(
        purchaseListSchema,
        await operatorCall(
          `/api/onramp/purchases${query({ state: request.state, limit: request.limit, cursor: request.cursor })}`,
        ),
      );
    case 'purchases.get':
      return proxyAnswer(
        purchaseDetailSchema,
        await operatorCall(`/api/onramp/purchases/${encodeURIComponent(request.id)}`),
      );
    case 'purchases.retryMint':
      return proxyAnswer(
        operatorPurchaseSchema,
        await operatorCall(`/api/onramp/purchases/${encodeURIComponent(request.id)}/retry-mint`, { method: 'POST' }),
      );
    case 'purchases.refund':
      return proxyAnswer(
        operatorPurchaseSchema,
        await operatorCall(`/api/onramp/purchases/${encodeURIComponent(request.id)}/refund`, {
          method: 'POST',
          body: { note: request.note },
        }),
      );
    case 'chains.list':
      return listChains();
    case 'vault.status':
      return walletStatus();
    case 'vault.create':
      return createKey(request.password);
    case 'vault.import':
      return {
        address: await importKey(request.password, { privateKey: request.privateKey, mnemonic: request.mnemonic }),
      };
    case 'vault.importSandbox':
      return { address: await importKey(request.password, { privateKey: await sandboxAccountKey() }) };
    case 'vault.unlock':
      await unlock(request.password);
      return walletStatus();
    case 'vault.lock':
      await lock();
      return walletStatus();
    case 'vault.remove':
      await removeKey(request.password);
      await announceAccounts();
      return walletStatus();
    case 'vault.autoLock':
      await setAutoLockMinutes(request.minutes);
      return walletStatus();
    case 'wallet.switchChain':
      await moveToChain(request.chainId);
      return walletStatus();
    case 'wallet.activity': {
      const { address } = await vaultState();
      if (!address) return null;
      if (!request.fresh) {
        const kept = await keptActivity(address);
        if (kept) return kept;
      }
      const activity = await readActivity(address, await listChains());
      await keepActivity(activity);
      return activity;
    }
    case 'connections.revoke':
      await forgetOrigin(request.origin);
      return walletStatus();
    case 'connections.unblock':
      await unblock(request.origin);
      return walletStatus();
    case 'approval.get': {
      const view = await approvalView(request.id);
      if (!view) throw new InvalidInput('This request is no longer waiting: it was answered, or its page closed');
      return view;
    }
    case 'approval.answer': {
      const origin = pendingApproval(request.id)?.request.origin;
      await answerApproval(request.id, { approve: request.approve, password: request.password });
      // Blocking: this request is rejected, and so is everything else of the site, now and until unblocked.
      if (!request.approve && request.block && origin) await blockOrigin(origin);
      return { done: true };
    }
  }
}

chrome.runtime.onMessage.addListener((message: unknown, sender, sendResponse: (response: UiResponse) => void) => {
  const envelope = message as { channel?: unknown; request?: unknown } | null;
  if (!envelope || envelope.channel !== UI_CHANNEL) return false;
  if (!isExtensionPage(sender)) {
    sendResponse({ ok: false, error: 'Only Kassa’s own pages may ask this' });
    return false;
  }
  const parsed = uiRequestSchema.safeParse(envelope.request);
  if (!parsed.success) {
    sendResponse({ ok: false, error: describeZodError(parsed.error) });
    return false;
  }
  const request = parsed.data;
  // What the user does in Kassa's own pages is activity: the idle lock starts counting again. Reads
  // and polls (the Wallet tab's activity every few seconds) are not.
  const activity = USER_ACTIONS.has(request.kind) ? touch() : Promise.resolve();
  activity
    .then(() => handleUi(request))
    .then(
      (value) => sendResponse({ ok: true, value }),
      (error: unknown) =>
        sendResponse({
          ok: false,
          error: error instanceof Error ? error.message : String(error),
          status: (error as { status?: number }).status,
        }),
    );
  return true;
});

chrome.runtime.onConnect.addListener((port) => {
  const sender = port.sender;
  if (port.name === PROVIDER_PORT) return acceptProviderPort(port);
  if (!sender || !isExtensionPage(sender)) return port.disconnect();
  if (port.name === PAYMENTS_PORT) {
    const stop = followPaymentEvents({
      onStatus: (payment) => port.postMessage({ type: 'status', payment }),
      onState: (state, error) => port.postMessage({ type: 'stream', state, ...(error ? { error } : {}) }),
    });
    port.onDisconnect.addListener(stop);
  } else if (port.name === APPROVAL_PORT) {
    // The window's heartbeats arrive here; receiving them keeps this worker alive while it is open.
    port.onMessage.addListener(() => undefined);
  } else {
    port.disconnect();
  }
});
