/** The Wallet tab's requests: the key (vault.ts), its chain, its activity, and the sites it is connected to. */
import type { WalletStatus } from '../messages.ts';
import { keepActivity, keptActivity, readActivity } from './activity.ts';
import { currentChain, listChains } from './chains.ts';
import { connectedOrigins } from './connections.ts';
import { announceAccounts, forgetOrigin, moveToChain } from './provider.ts';
import { sandboxAccountKey } from './sandbox-account.ts';
import { blockedOrigins, unblock } from './site-guard.ts';
import type { UiHandlers } from './ui-requests.ts';
import {
  autoLockMinutes,
  createKey,
  importKey,
  lock,
  removeKey,
  retryInSeconds,
  setAutoLockMinutes,
  unlock,
  vaultState,
} from './vault.ts';

const STATUS_CHAIN_WAIT_MS = 3_000;

async function walletStatus(): Promise<WalletStatus> {
  const { state, address } = await vaultState();
  return {
    state,
    address,
    autoLockMinutes: await autoLockMinutes(),
    retryInSeconds: await retryInSeconds(),
    // A proxy that does not answer must not hold the wallet view up: the chain is then unknown.
    chainId:
      (
        await Promise.race([
          currentChain(),
          new Promise<undefined>((resolve) => setTimeout(resolve, STATUS_CHAIN_WAIT_MS)),
        ]).catch(() => undefined)
      )?.chainId ?? null,
    connectedOrigins: await connectedOrigins(),
    blockedOrigins: await blockedOrigins(),
  };
}

export const walletHandlers = {
  'chains.list': () => listChains(),
  'vault.status': walletStatus,
  'vault.create': ({ password }) => createKey(password),
  'vault.import': async ({ password, privateKey, mnemonic }) => ({
    address: await importKey(password, { privateKey, mnemonic }),
  }),
  'vault.importSandbox': async ({ password }) => ({
    address: await importKey(password, { privateKey: await sandboxAccountKey() }),
  }),
  'vault.unlock': async ({ password }) => {
    await unlock(password);
    return walletStatus();
  },
  'vault.lock': async () => {
    await lock();
    return walletStatus();
  },
  'vault.remove': async ({ password }) => {
    await removeKey(password);
    await announceAccounts();
    return walletStatus();
  },
  'vault.autoLock': async ({ minutes }) => {
    await setAutoLockMinutes(minutes);
    return walletStatus();
  },
  'wallet.switchChain': async ({ chainId }) => {
    await moveToChain(chainId);
    return walletStatus();
  },
  'wallet.activity': async ({ fresh }) => {
    const { address } = await vaultState();
    if (!address) return null;
    if (!fresh) {
      const kept = await keptActivity(address);
      if (kept) return kept;
    }
    const activity = await readActivity(address, await listChains());
    await keepActivity(activity);
    return activity;
  },
  'connections.revoke': async ({ origin }) => {
    await forgetOrigin(origin);
    return walletStatus();
  },
  'connections.unblock': async ({ origin }) => {
    await unblock(origin);
    return walletStatus();
  },
} satisfies Partial<UiHandlers>;
