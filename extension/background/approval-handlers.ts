/** The approval window's requests (approvals.ts keeps what waits for it), and the port it holds open. */
import { ProviderRpcError, RPC } from '../eip1193.ts';
import { approvalView } from './approval-view.ts';
import { answerApproval, pendingApproval, rejectWhere } from './approvals.ts';
import { forgetOrigin } from './provider.ts';
import { block } from './site-guard.ts';
import { RefusedRequest, type UiHandlers } from './ui-requests.ts';

/** The user blocked a site from its approval window: disconnected, and its waiting requests rejected. */
async function blockOrigin(origin: string): Promise<void> {
  await block(origin);
  await forgetOrigin(origin);
  rejectWhere(
    (request) => request.origin === origin,
    new ProviderRpcError(RPC.unauthorized, 'The user blocked this site in Kassa'),
  );
}

export const approvalHandlers = {
  'approval.get': async ({ id }) => {
    const view = await approvalView(id);
    if (!view) throw new RefusedRequest('This request is no longer waiting: it was answered, or its page closed');
    return view;
  },
  'approval.answer': async (request) => {
    const origin = pendingApproval(request.id)?.request.origin;
    await answerApproval(request.id, { approve: request.approve, password: request.password });
    // Blocking: this request is rejected, and so is everything else of the site, now and until unblocked.
    if (!request.approve && request.block && origin) await blockOrigin(origin);
    return { done: true };
  },
} satisfies Partial<UiHandlers>;

/** The window's heartbeats arrive on its port; receiving them keeps this worker alive while it is open. */
export function acceptApprovalPort(port: chrome.runtime.Port): void {
  port.onMessage.addListener(() => undefined);
}
