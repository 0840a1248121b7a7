/**
 * The toolbar badge: how many approval requests wait for this person's decision (pending, someone
 * else's, and their role has the request's permission: the proxy's `canDecide`). Read again every
 * minute while signed in (an alarm), as the session changes, when the Approvals view reads its
 * pending list, and after every action on a request or on money; empty when signed out. Its tooltip
 * is in the browser's language (`_locales`), as the toolbar around it is.
 */
import { approvalListSchema, type ApprovalView } from '../../schemas/operators.ts';
import { operatorCall, ProxyCallError } from './operator-api.ts';
import { onSessionChange, storedSession } from './operator-session.ts';
import { proxyAnswer } from './proxy-answer.ts';
import { SettingsError } from './settings.ts';

export const BADGE_ALARM = 'kassa.approvals';

/** The requests of a pending list this person may decide. */
export const decidable = (approvals: readonly ApprovalView[]): number =>
  approvals.filter((approval) => approval.state === 'pending' && approval.canDecide).length;

/**
 * Shows `count` on the toolbar button (nothing for none). The count goes last: its colours and its
 * tooltip are in place by the time it shows, so the badge never names a count its tooltip does not.
 */
export async function showCount(count: number): Promise<void> {
  await chrome.action.setBadgeBackgroundColor({ color: '#b42318' });
  await chrome.action.setBadgeTextColor({ color: '#ffffff' });
  await chrome.action.setTitle({
    title: count ? chrome.i18n.getMessage('approvalsWaiting', [String(count)]) : chrome.i18n.getMessage('extName'),
  });
  await chrome.action.setBadgeText({ text: count ? String(Math.min(count, 999)) : '' });
}

/** Counts the pending requests again. A proxy that cannot be asked now leaves the badge as it was. */
export async function refreshBadge(): Promise<void> {
  try {
    const list = proxyAnswer(approvalListSchema, await operatorCall('/api/approvals?state=pending&limit=200'));
    await showCount(decidable(list.approvals));
  } catch (error) {
    if (error instanceof SettingsError || (error instanceof ProxyCallError && error.status === 401)) await showCount(0);
  }
}

// Signed in: counted now and every minute; signed out: cleared and no longer read.
onSessionChange(() => {
  void storedSession().then(async (session) => {
    if (session) await chrome.alarms.create(BADGE_ALARM, { periodInMinutes: 1 });
    else await chrome.alarms.clear(BADGE_ALARM);
    await refreshBadge();
  });
});
