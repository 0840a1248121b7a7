/**
 * Compiles the sandbox's Solidity sources with solc-js (the npm `solc` package: no compiler
 * download). `npm run contracts` writes each contract's artefact beside its source
 * (`KassaStablecoin.json`, `KassaSmartWallet.json`), which the sandbox loads instead of compiling; a
 * test compiles again and checks the committed files match byte for byte.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The stablecoin every chain carries, and the contract wallet (EIP-1271) the control API deploys. */
export const CONTRACTS = ['KassaStablecoin', 'KassaSmartWallet'] as const;
export type ContractName = (typeof CONTRACTS)[number];

export const artefactPath = (name: ContractName) => join(import.meta.dirname, `${name}.json`);

/** A committed artefact, as `npm run contracts` wrote it: start-up never compiles. */
export const readArtefact = (name: ContractName) =>
  JSON.parse(readFileSync(artefactPath(name), 'utf8')) as ContractArtefact;

const require = createRequire(import.meta.url);

// Pinned so the bytecode does not change with solc's default target and runs on any chain since
// Cancun (anvil's default is newer).
const SETTINGS = { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun' } as const;

export interface ContractArtefact {
  contractName: string;
  compiler: string;
  settings: typeof SETTINGS;
  abi: unknown[];
  bytecode: string;
}

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

/** Compiles one contract; the text its artefact file holds (stable, so it can be compared). */
export function compileArtefact(name: ContractName): string {
  // solc-js is a 9 MB emscripten build: loaded only when compiling, never at sandbox start.
  const solc = require('solc') as { version(): string; compile(input: string, callbacks: object): string };
  const unit = `${name}.sol`;
  const input = {
    language: 'Solidity',
    // Source unit names, not absolute paths: they end up in the metadata hash inside the bytecode.
    sources: { [unit]: { content: readFileSync(join(import.meta.dirname, unit), 'utf8') } },
    settings: { ...SETTINGS, outputSelection: { [unit]: { [name]: ['abi', 'evm.bytecode.object'] } } },
  };
  const findImports = (path: string) => {
    try {
      return { contents: readFileSync(require.resolve(path), 'utf8') };
    } catch {
      return { error: `not found: ${path}` };
    }
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports })) as SolcOutput;
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length) throw new Error(`solc failed:\n${errors.map((error) => error.formattedMessage).join('\n')}`);
  const contract = output.contracts[unit]?.[name];
  if (!contract) throw new Error(`solc produced no ${name}`);
  const artefact: ContractArtefact = {
    contractName: name,
    compiler: solc.version(),
    settings: SETTINGS,
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
  };
  return `${JSON.stringify(artefact, null, 2)}\n`;
}
