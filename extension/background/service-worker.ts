/**
 * Kassa's service worker: the only part of the extension that holds the settings (proxy URL), the
 * operator's device session, the vault, the connected origins and the approval flow. This module only
 * wires it up. Pages of the extension talk to it with runtime messages (extension/messages.ts), each
 * kind answered by the handler its background area offers (ui-requests.ts); web pages only through
 * the content script's port (extension/page-messages.ts), as an EIP-1193 provider (provider-port.ts).
 */
import { APPROVAL_PORT, PAYMENTS_PORT, SESSION_PORT } from '../messages.ts';
import { PROVIDER_PORT } from '../page-messages.ts';
import { accountHandlers } from './account-handlers.ts';
import { acceptApprovalPort, approvalHandlers } from './approval-handlers.ts';
import { windowClosed } from './approvals.ts';
import { BADGE_ALARM, refreshBadge } from './approvals-badge.ts';
import { resumeSignIn, SIGN_IN_ALARM } from './device-signin.ts';
import {
  acceptPaymentsPort,
  eventHandlers,
  orderHandlers,
  paymentHandlers,
  purchaseHandlers,
} from './operator-handlers.ts';
import { destinationHandlers, merchantKeyHandlers } from './integration-handlers.ts';
import { linkHandlers } from './link-handlers.ts';
import { announceAccounts } from './provider.ts';
import { acceptProviderPort } from './provider-port.ts';
import { acceptSessionPort } from './session-ports.ts';
import { settingsHandlers } from './settings-handlers.ts';
import { restrictStorage } from './storage.ts';
import { answerUiRequests, isExtensionPage, type UiHandlers } from './ui-requests.ts';
import { AUTO_LOCK_ALARM, lock, onLockChange, touch } from './vault.ts';
import { walletHandlers } from './wallet-handlers.ts';

void restrictStorage();
onLockChange(() => void announceAccounts());
// A device sign-in under way when Chromium stopped the worker goes on.
resumeSignIn();

chrome.runtime.onStartup.addListener(() => void lock());
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === AUTO_LOCK_ALARM) void lock();
  else if (alarm.name === SIGN_IN_ALARM) resumeSignIn();
  else if (alarm.name === BADGE_ALARM) void refreshBadge();
});
chrome.windows.onRemoved.addListener((windowId) => windowClosed(windowId));

const handlers: UiHandlers = {
  ...settingsHandlers,
  ...paymentHandlers,
  ...orderHandlers,
  ...eventHandlers,
  ...purchaseHandlers,
  ...accountHandlers,
  ...destinationHandlers,
  ...merchantKeyHandlers,
  ...linkHandlers,
  ...walletHandlers,
  ...approvalHandlers,
};
chrome.runtime.onMessage.addListener(answerUiRequests({ handlers, onUserAction: touch }));

/** The ports Kassa's own pages hold open, by name. */
const EXTENSION_PAGE_PORTS: Record<string, (port: chrome.runtime.Port) => void> = {
  [PAYMENTS_PORT]: acceptPaymentsPort,
  [SESSION_PORT]: acceptSessionPort,
  [APPROVAL_PORT]: acceptApprovalPort,
};

chrome.runtime.onConnect.addListener((port) => {
  // A web page's provider: its content script, in a tab's top frame (provider-port.ts checks the sender).
  if (port.name === PROVIDER_PORT) return acceptProviderPort(port);
  const accept = Object.hasOwn(EXTENSION_PAGE_PORTS, port.name) ? EXTENSION_PAGE_PORTS[port.name] : undefined;
  if (!accept || !port.sender || !isExtensionPage(port.sender)) return port.disconnect();
  accept(port);
});
