import { formatUnits, Transaction } from 'ethers';
import type { ApprovalView } from '../messages.ts';
import { pendingApproval } from './approvals.ts';
import { rejectedBefore } from './site-guard.ts';
import { vaultState } from './vault.ts';

/** What the approval window `id` shows of its waiting request; undefined once it is answered or its page closed. */
export async function approvalView(id: string): Promise<ApprovalView | undefined> {
  const found = pendingApproval(id);
  if (!found) return undefined;
  const { request: asked, queued } = found;
  const common = {
    id,
    origin: asked.origin,
    lang: asked.lang,
    queued,
    rejectedBefore: await rejectedBefore(asked.origin),
  };
  switch (asked.kind) {
    case 'connect': {
      const { state, address } = await vaultState();
      return { kind: 'connect', ...common, state, address };
    }
    case 'proof': {
      const { text, message, statement, chain } = asked.proof;
      return {
        kind: 'proof',
        ...common,
        from: asked.from,
        text,
        message,
        statement,
        chain: { chainId: chain.chainId, name: chain.name },
      };
    }
    case 'transaction': {
      const native = asked.chains.find((chain) => BigInt(chain.chainId) === Transaction.from(asked.tx).chainId);
      return {
        kind: 'transaction',
        ...common,
        from: asked.from,
        tx: asked.tx,
        chains: asked.chains,
        fee: { high: asked.fee.high, usual: formatUnits(asked.fee.usualWei, native?.nativeCurrency.decimals ?? 18) },
      };
    }
  }
}
