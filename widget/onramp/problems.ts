import type { ProblemController, ProblemOptions } from '../shared/problem-controller.ts';
import type { ProxyError } from '../shared/proxy-client.ts';
import type { WalletError, WalletErrorKind } from '../shared/wallet/wallet-errors.ts';
import type { OnrampErrorDetail, OnrampStage } from './events.ts';
import type { OnrampMessages } from './messages/en.ts';

export type OnrampProblems = ProblemController<OnrampMessages, OnrampErrorDetail>;

/** The on-ramp's words for what the proxy answers, and which of its problems are not bad news. */
export const ONRAMP_PROBLEMS: ProblemOptions<OnrampMessages> = {
  event: 'kassa-error',
  refusals: { 404: 'notEnabled', 409: 'quoteUsed', 410: 'quoteExpired' },
  refused: 'quoteRefused',
  tones: { accountChanged: '' },
  // A refusal stands (the amount or the wallet must change first), unless it said when to come back.
  retryable: ({ kind, retryAfter }) => kind !== 'rejected' || !!retryAfter,
};

/** What the customer is told for each wallet refusal. */
const WALLET_MESSAGES: Record<WalletErrorKind, keyof OnrampMessages> = {
  'wallet-rejected': 'walletRejected',
  'wallet-unauthorized': 'walletUnauthorized',
  'wallet-disconnected': 'walletDisconnected',
  'wallet-busy': 'walletBusy',
  'insufficient-gas': 'walletError',
  'wallet-error': 'walletError',
};

/** The wallet refused (to connect, or to sign): the customer is told, the page is sent `kassa-error`. */
export function walletRefused(problems: OnrampProblems, error: WalletError, stage: OnrampStage): void {
  const rejectedConnect = stage === 'connect' && error.kind === 'wallet-rejected';
  problems.show({ message: rejectedConnect ? 'connectRejected' : WALLET_MESSAGES[error.kind] });
  problems.report({
    kind: error.kind,
    stage,
    status: 0,
    message: error.message,
    ...(error.code === undefined ? {} : { code: error.code }),
  });
}

/** The proxy's error, as `kassa-error` tells it. */
export function proxyErrorDetail(
  { kind, status, message, retryAfter }: ProxyError,
  stage: OnrampStage,
): OnrampErrorDetail {
  return { kind, stage, status, message, ...(retryAfter ? { retryAfter } : {}) };
}
