import type { ZodError } from 'zod';
import type { ExtensionMessages } from './ui-locale.ts';

export const ORDER_FIELDS = ['stableCoin', 'amount', 'mintWallet', 'chainId', 'customerName', 'customerOrder'] as const;
export type OrderField = (typeof ORDER_FIELDS)[number] | 'orderStatus';
export type OrderProblems = Partial<Record<OrderField, string>>;

/** What each field's problem is, in words, whatever the schema's own (developer's) message said. */
const WORDS: Record<OrderField, keyof ExtensionMessages> = {
  stableCoin: 'problemCoin',
  amount: 'problemAmount',
  mintWallet: 'problemWallet',
  chainId: 'problemChain',
  customerName: 'problemName',
  customerOrder: 'problemOrder',
  orderStatus: 'problemStatus',
};

/** The order schema's refusal as one message per field, in the user's language. */
export function orderProblems(error: ZodError, m: ExtensionMessages): OrderProblems {
  const problems: OrderProblems = {};
  for (const issue of error.issues) {
    const field = issue.path[0] as OrderField;
    // A name with invisible direction characters is not an empty one: say what is wrong with it.
    if (field in WORDS)
      problems[field] ??= issue.message.includes('bidirectional') ? m.problemDirection : m[WORDS[field]];
  }
  return problems;
}
