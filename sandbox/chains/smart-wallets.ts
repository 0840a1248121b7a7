import { ContractFactory, id, parseUnits, toQuantity, Wallet } from 'ethers';
import { readArtefact } from '../contracts/compile.ts';
import { KeyedSerial } from './keyed-serial.ts';
import type { LocalChain } from './local-chains.ts';
import { waitForReceipt } from './provider.ts';

const SMART_WALLET_ARTEFACT = readArtefact('KassaSmartWallet');
/** Deploys contract wallets; a key of its own, so that the relayer's nonces stay the relayer's. */
const DEPLOYER_PRIVATE_KEY = id('kassa sandbox smart-wallet deployer');
const DEPLOY_GAS_LIMIT = 1_000_000n;
const DEPLOY_TIMEOUT_MS = 10_000;

/**
 * Contract wallets (EIP-1271) on the emulator's chains: `KassaSmartWallet`, which accepts a signature
 * when its owner key made it. What smart accounts and multisigs are to a dapp, for tests of Kassa's
 * ownership proofs and for merchants' own.
 */
export class SmartWallets {
  private readonly deployer = new Wallet(DEPLOYER_PRIVATE_KEY);
  private readonly serial = new KeyedSerial();

  /** Deploys a wallet owned by `owner` on `chain`; its address. */
  deploy(chain: LocalChain, owner: string): Promise<string> {
    return this.serial.run(String(chain.chainId), async () => {
      const { provider } = chain;
      const [nonce, block] = await Promise.all([
        provider.getTransactionCount(this.deployer.address, 'pending'),
        provider.getBlock('latest'),
        provider.send('anvil_setBalance', [this.deployer.address, toQuantity(parseUnits('1000', 18))]),
      ]);
      const priorityFee = parseUnits('1', 'gwei');
      const factory = new ContractFactory(SMART_WALLET_ARTEFACT.abi as never, SMART_WALLET_ARTEFACT.bytecode);
      const signed = await this.deployer.signTransaction({
        ...(await factory.getDeployTransaction(owner)),
        type: 2,
        chainId: chain.chainId,
        nonce,
        gasLimit: DEPLOY_GAS_LIMIT,
        maxFeePerGas: (block?.baseFeePerGas ?? 0n) * 2n + priorityFee,
        maxPriorityFeePerGas: priorityFee,
      });
      const hash = (await provider.send('eth_sendRawTransaction', [signed])) as string;
      const receipt = await waitForReceipt(provider, hash, DEPLOY_TIMEOUT_MS);
      if (receipt.status !== 1 || !receipt.contractAddress)
        throw new Error(`deploying a smart wallet on chain ${chain.chainId} failed (tx ${hash})`);
      return receipt.contractAddress;
    });
  }
}
