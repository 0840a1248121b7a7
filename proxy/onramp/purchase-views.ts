import type { OperatorPurchase, PurchaseAudit, PurchaseView } from '../../schemas/onramp.ts';
import type { PurchaseAuditRecord, PurchaseRecord } from '../state/purchases.ts';

const iso = (at: number | null): string | null => (at === null ? null : new Date(at).toISOString());

/** Where the mint is on the chain's explorer (`<explorer>/tx/<hash>`), when both are known. */
export const explorerLink = (explorer: string | undefined, txHash: string | null): string | null =>
  explorer && txHash ? `${explorer.replace(/\/+$/, '')}/tx/${txHash}` : null;

/** What the customer sees. `paymentStatus` is the status of the checkout's latest payment, if one was started. */
export function purchaseView(
  purchase: PurchaseRecord,
  paymentStatus: string | null,
  explorer: string | undefined,
): PurchaseView {
  return {
    purchaseId: purchase.purchaseId,
    state: purchase.state,
    symbol: purchase.symbol,
    amount: purchase.tokens,
    chainId: purchase.chainId,
    chainName: purchase.chainName,
    wallet: purchase.wallet,
    payment: {
      amount: purchase.paymentAmount,
      currencyCode: purchase.currencyCode,
      fee: purchase.fee,
      status: paymentStatus,
    },
    checkoutId: purchase.checkoutId,
    txHash: purchase.txHash,
    blockNumber: purchase.blockNumber,
    explorerUrl: explorerLink(explorer, purchase.txHash),
    createdAt: new Date(purchase.createdAt).toISOString(),
    updatedAt: new Date(purchase.updatedAt).toISOString(),
    deliveredAt: iso(purchase.deliveredAt),
  };
}

/** The operator's view, and the `data` of the purchase's events (built inside a store transaction). */
export function operatorPurchaseView(
  purchase: PurchaseRecord,
  paymentStatus: string | null,
  explorer: string | undefined,
): OperatorPurchase {
  return {
    ...purchaseView(purchase, paymentStatus, explorer),
    transactionId: purchase.transactionId,
    order:
      purchase.orderId && purchase.customerOrder
        ? {
            orderId: purchase.orderId,
            customerOrder: purchase.customerOrder,
            orderStatus: purchase.orderStatus,
            createdAt: new Date(purchase.orderCreatedAt ?? purchase.updatedAt).toISOString(),
          }
        : null,
    orderAttempts: purchase.orderAttempts,
    delayedReason: purchase.delayedReason,
    paidAt: iso(purchase.paidAt),
  };
}

export const auditView = (entry: PurchaseAuditRecord): PurchaseAudit => ({
  ...entry,
  at: new Date(entry.at).toISOString(),
});
