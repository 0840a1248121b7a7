import type { ApprovalRecord, Approvals } from '../operator/approvals.ts';
import type { PurchaseRecord } from '../state/purchases.ts';
import type { PurchaseOperations } from './purchase-operations.ts';

/** What an approver reads of a purchase an operator wants to act on. */
export const purchaseSummary = (purchase: PurchaseRecord): ApprovalRecord['summary'] => ({
  purchaseId: purchase.purchaseId,
  tokens: purchase.tokens,
  coin: purchase.symbol,
  chain: purchase.chainName,
  wallet: purchase.wallet,
  payment: `${purchase.paymentAmount} ${purchase.currencyCode}`,
  state: purchase.state,
  orderId: purchase.orderId,
});

/** Retrying a mint and marking a refund, as dual control runs them once approved. */
export function registerPurchaseActions(approvals: Approvals, operations: PurchaseOperations): void {
  approvals.register('purchase.retry-mint', async (approval, context) => {
    const purchase = await operations.retryMint(approval.target!, context.requestId);
    return { purchaseId: purchase.purchaseId, state: purchase.state };
  });
  approvals.register('purchase.refund', async (approval, context) => {
    const { note } = approval.payload as { note: string };
    const purchase = await operations.refund(approval.target!, note, context.requestId);
    return { purchaseId: purchase.purchaseId, state: purchase.state };
  });
}
