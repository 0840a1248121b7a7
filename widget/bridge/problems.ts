import type { ProblemController, ProblemOptions } from '../shared/problem-controller.ts';
import type { ProxyError } from '../shared/proxy-client.ts';
import { fromWalletError, type BridgeError, type BridgeErrorKind, type BridgeStage } from './errors.ts';
import type { BridgeErrorDetail } from './events.ts';
import type { BridgeMessages } from './messages/en.ts';

export type BridgeProblems = ProblemController<BridgeMessages, BridgeErrorDetail>;

/** The panel's words for what the proxy answers, and which of its problems are not bad news. */
export const BRIDGE_PROBLEMS: ProblemOptions<BridgeMessages> = {
  event: 'kassa-bridge-error',
  refusals: { 403: 'notAllowed' },
  refused: 'prepareRefused',
  tones: { accountChanged: '' },
};

/** What the user is told for each error kind (those with a message of their own). */
const KIND_MESSAGES: Partial<Record<BridgeErrorKind, keyof BridgeMessages>> = {
  'wallet-rejected': 'walletRejected',
  'wallet-unauthorized': 'walletUnauthorized',
  'wallet-disconnected': 'walletDisconnected',
  'wallet-busy': 'walletBusy',
  'wallet-error': 'walletError',
  'wrong-chain': 'wrongChain',
  'preview-refused': 'previewRefused',
  reverted: 'reverted',
  dropped: 'dropped',
  replaced: 'replaced',
  rpc: 'rpcError',
  'no-chains': 'noChains',
  misconfigured: 'misconfigured',
};

export const kindMessage = (kind: BridgeErrorKind, otherwise: keyof BridgeMessages): keyof BridgeMessages =>
  KIND_MESSAGES[kind] ?? otherwise;

/** A wallet's or a chain's error, as `kassa-bridge-error` tells it. */
export function errorDetail({ kind, stage, message, extra }: BridgeError, hash?: string): BridgeErrorDetail {
  return {
    kind,
    stage,
    message,
    ...(extra.code !== undefined ? { code: extra.code } : {}),
    ...(hash ? { hash } : {}),
  };
}

/** The proxy's error, as `kassa-bridge-error` tells it. */
export function proxyErrorDetail(
  { kind, status, message, retryAfter }: ProxyError,
  stage: BridgeStage,
): BridgeErrorDetail {
  return { kind, stage, message, status, ...(retryAfter ? { retryAfter } : {}) };
}

/** The wallet refused to connect: the user is told, the page is sent `kassa-bridge-error`. */
export function walletRefused(problems: BridgeProblems, error: unknown): void {
  const problem = fromWalletError(error, 'connect');
  problems.show({
    message: problem.kind === 'wallet-rejected' ? 'connectRejected' : kindMessage(problem.kind, 'walletError'),
  });
  problems.report(errorDetail(problem));
}
