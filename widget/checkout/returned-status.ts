import { isStatusToken, STATUS_QUERY_PARAM } from '../../lib/status-token.ts';

let unread = true;

/**
 * The status token the bank's return put in this page's address. The first element to ask gets it
 * (a checkout rendered later on the same page starts fresh), and it is removed from the address with
 * history.replaceState so that it is not bookmarked, shared or sent on as a Referer; the element
 * keeps it in sessionStorage for reloads.
 */
export function takeReturnedStatusToken(): string | undefined {
  if (!unread) return undefined;
  unread = false;
  const url = new URL(location.href);
  const token = url.searchParams.get(STATUS_QUERY_PARAM);
  if (token === null) return undefined;
  url.searchParams.delete(STATUS_QUERY_PARAM);
  history.replaceState(history.state, '', url.href);
  return isStatusToken(token) ? token : undefined;
}

/** Whether this page is the bank's return with its status token not yet taken (the element that takes it may come later). */
export function backFromBank(): boolean {
  return unread && new URL(location.href).searchParams.has(STATUS_QUERY_PARAM);
}
