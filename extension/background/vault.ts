/**
 * The key vault. At rest, one key as an ethers scrypt keystore (Web3 Secret Storage v3 JSON) in
 * `chrome.storage.local`: the private key, and the recovery phrase when there is one, exist on disk
 * only encrypted under the user's password. Unlocking decrypts it into `chrome.storage.session`
 * (memory only: emptied when the browser closes or the extension reloads) and this worker's memory,
 * and schedules the lock: after the configured idle time (an alarm that the user's own activity, and
 * never a page's reads, pushes back), on browser start, on demand.
 *
 * Wrong passwords: each one makes the next attempt wait longer (1 s, 2 s, 4 s … at most 5 minutes),
 * counted in `chrome.storage.local` so that a restarted worker or a reloaded extension keeps counting.
 */
import { getAddress, HDNodeWallet, Mnemonic, Wallet } from 'ethers';
import { AUTO_LOCK_MINUTES, type VaultState } from '../messages.ts';
import { KEYS, readLocal, readSession, writeLocal, writeSession } from './storage.ts';

export const AUTO_LOCK_ALARM = 'kassa-auto-lock';
const MAX_DELAY_SECONDS = 300;

export interface StoredVault {
  version: 1;
  address: string;
  /** ethers' `encrypt()` output: scrypt-derived key, AES-128-CTR ciphertext, MAC. */
  keystore: string;
  source: 'created' | 'private-key' | 'mnemonic';
  createdAt: string;
}

interface Throttle {
  failures: number;
  /** Epoch ms before which no password is checked. */
  retryAt: number;
}

interface Unlocked {
  privateKey: string;
  address: string;
  /** Epoch ms at which the vault locks unless the user is active before. */
  lockAt: number;
}

export class VaultError extends Error {}

/** Seconds the next attempt must wait after `failures` wrong passwords in a row. */
export const delayAfter = (failures: number): number =>
  failures <= 0 ? 0 : Math.min(2 ** (failures - 1), MAX_DELAY_SECONDS);

type Listener = (address: string | null) => void;
const listeners = new Set<Listener>();
/** Called with the address on unlock and with null on lock. */
export function onLockChange(listener: Listener): void {
  listeners.add(listener);
}
const notify = (address: string | null) => listeners.forEach((listener) => listener(address));

let memory: Unlocked | undefined;
/** Password checks one at a time: two tries at once must not both slip past the delay. */
let queue: Promise<unknown> = Promise.resolve();
const serial = <T>(work: () => Promise<T>): Promise<T> => {
  const next = queue.then(work, work);
  queue = next.catch(() => undefined);
  return next;
};

export const readVault = () => readLocal<StoredVault>(KEYS.vault);

export async function autoLockMinutes(): Promise<number> {
  return (
    (await readLocal<{ autoLockMinutes?: number }>(KEYS.walletSettings))?.autoLockMinutes ?? AUTO_LOCK_MINUTES.default
  );
}

export async function setAutoLockMinutes(minutes: number): Promise<void> {
  await writeLocal(KEYS.walletSettings, { autoLockMinutes: minutes });
  if (await unlocked()) await touch();
}

/** The unlocked key, or undefined when locked; a lock time already past locks it now. */
async function unlocked(): Promise<Unlocked | undefined> {
  const current = memory ?? (await readSession<Unlocked>(KEYS.unlocked));
  if (!current) return undefined;
  if (Date.now() >= current.lockAt) {
    await lock();
    return undefined;
  }
  memory = current;
  return current;
}

export async function vaultState(): Promise<{ state: VaultState; address: string | null }> {
  const vault = await readVault();
  if (!vault) return { state: 'empty', address: null };
  return { state: (await unlocked()) ? 'unlocked' : 'locked', address: vault.address };
}

export async function retryInSeconds(): Promise<number> {
  const throttle = await readLocal<Throttle>(KEYS.throttle);
  return throttle ? Math.max(0, Math.ceil((throttle.retryAt - Date.now()) / 1000)) : 0;
}

/** The account while unlocked, else null (what `eth_accounts` may show). */
export async function unlockedAddress(): Promise<string | null> {
  return (await unlocked())?.address ?? null;
}

/** A signer for one approved transaction; undefined when locked (the caller fails closed). */
export async function signer(): Promise<Wallet | undefined> {
  const current = await unlocked();
  return current ? new Wallet(current.privateKey) : undefined;
}

/** The user did something with the wallet: the idle lock starts counting again. */
export async function touch(): Promise<void> {
  // A lock time already past locks now: activity after it must not revive the key.
  const current = await unlocked();
  if (!current) return;
  const lockAt = Date.now() + (await autoLockMinutes()) * 60_000;
  memory = { ...current, lockAt };
  await writeSession(KEYS.unlocked, memory);
  await chrome.alarms.create(AUTO_LOCK_ALARM, { when: lockAt });
}

async function open(wallet: Wallet | HDNodeWallet): Promise<string> {
  const address = getAddress(wallet.address);
  memory = { privateKey: wallet.privateKey, address, lockAt: Date.now() + 60_000 };
  await writeSession(KEYS.unlocked, memory);
  await touch();
  notify(address);
  return address;
}

export async function lock(): Promise<void> {
  const was = memory !== undefined || (await readSession<Unlocked>(KEYS.unlocked)) !== undefined;
  memory = undefined;
  await chrome.storage.session.remove(KEYS.unlocked);
  await chrome.alarms.clear(AUTO_LOCK_ALARM);
  if (was) notify(null);
}

async function store(wallet: Wallet | HDNodeWallet, password: string, source: StoredVault['source']): Promise<string> {
  if (await readVault()) throw new VaultError('Kassa already holds a key: remove it first (Wallet → Remove key)');
  const vault: StoredVault = {
    version: 1,
    address: getAddress(wallet.address),
    keystore: await wallet.encrypt(password),
    source,
    createdAt: new Date().toISOString(),
  };
  await writeLocal(KEYS.vault, vault);
  await chrome.storage.local.remove(KEYS.throttle);
  return open(wallet);
}

/** A new random key with a recovery phrase; unlocked at once. The phrase is returned once, to show. */
export async function createKey(password: string): Promise<{ address: string; mnemonic: string }> {
  return serial(async () => {
    const wallet = Wallet.createRandom();
    const address = await store(wallet, password, 'created');
    return { address, mnemonic: wallet.mnemonic!.phrase };
  });
}

/** Imports a private key (32 bytes of hex) or a BIP-39 phrase (its first account, m/44'/60'/0'/0/0). */
export async function importKey(password: string, secret: { privateKey?: string; mnemonic?: string }): Promise<string> {
  return serial(async () => {
    if (secret.privateKey !== undefined && secret.mnemonic === undefined) {
      const text = secret.privateKey.trim();
      if (!/^(0x)?[0-9a-fA-F]{64}$/.test(text))
        throw new VaultError('A private key is 64 hexadecimal digits (0x optional)');
      let wallet: Wallet;
      try {
        wallet = new Wallet(text.startsWith('0x') ? text : `0x${text}`);
      } catch {
        throw new VaultError('This is not a valid private key');
      }
      return store(wallet, password, 'private-key');
    }
    if (secret.mnemonic !== undefined && secret.privateKey === undefined) {
      const phrase = secret.mnemonic.trim().toLowerCase().split(/\s+/).join(' ');
      if (!Mnemonic.isValidMnemonic(phrase))
        throw new VaultError('This is not a valid recovery phrase (12 to 24 English BIP-39 words)');
      return store(HDNodeWallet.fromPhrase(phrase), password, 'mnemonic');
    }
    throw new VaultError('Import either a private key or a recovery phrase');
  });
}

/** Decrypts the keystore with the password, under the growing delay; throws VaultError with what to do. */
async function checkPassword(password: string): Promise<Wallet | HDNodeWallet> {
  const vault = await readVault();
  if (!vault) throw new VaultError('Kassa holds no key yet: create or import one');
  const throttle = (await readLocal<Throttle>(KEYS.throttle)) ?? { failures: 0, retryAt: 0 };
  const wait = Math.ceil((throttle.retryAt - Date.now()) / 1000);
  if (wait > 0) throw new VaultError(`Too many wrong passwords: try again in ${wait} s`);
  try {
    const wallet = await Wallet.fromEncryptedJson(vault.keystore, password);
    await chrome.storage.local.remove(KEYS.throttle);
    return wallet;
  } catch {
    const failures = throttle.failures + 1;
    const delay = delayAfter(failures);
    await writeLocal(KEYS.throttle, { failures, retryAt: Date.now() + delay * 1000 } satisfies Throttle);
    throw new VaultError(`Wrong password. You can try again in ${delay} s`);
  }
}

export async function unlock(password: string): Promise<string> {
  return serial(async () => open(await checkPassword(password)));
}

/** Forgets the key, after the password proves the user may. */
export async function removeKey(password: string): Promise<void> {
  await serial(async () => {
    await checkPassword(password);
    await lock();
    await chrome.storage.local.remove([KEYS.vault, KEYS.throttle, KEYS.connections]);
  });
}
