/**
 * Compiles the sandbox's Solidity sources with solc-js (the npm `solc` package: no compiler
 * download). `npm run contracts` writes the result to `KassaStablecoin.json`, which start-up loads
 * instead of compiling; a test compiles again and checks the committed file matches byte for byte.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export const CONTRACT_NAME = 'KassaStablecoin';
export const SOURCE_PATH = join(import.meta.dirname, `${CONTRACT_NAME}.sol`);
export const ARTEFACT_PATH = join(import.meta.dirname, `${CONTRACT_NAME}.json`);

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

/** Compiles the contract; the text the artefact file holds (stable, so it can be compared). */
export function compileArtefact(): string {
  // solc-js is a 9 MB emscripten build: loaded only when compiling, never at sandbox start.
  const solc = require('solc') as { version(): string; compile(input: string, callbacks: object): string };
  const unit = `${CONTRACT_NAME}.sol`;
  const input = {
    language: 'Solidity',
    // Source unit names, not absolute paths: they end up in the metadata hash inside the bytecode.
    sources: { [unit]: { content: readFileSync(SOURCE_PATH, 'utf8') } },
    settings: { ...SETTINGS, outputSelection: { [unit]: { [CONTRACT_NAME]: ['abi', 'evm.bytecode.object'] } } },
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
  const contract = output.contracts[unit]?.[CONTRACT_NAME];
  if (!contract) throw new Error(`solc produced no ${CONTRACT_NAME}`);
  const artefact: ContractArtefact = {
    contractName: CONTRACT_NAME,
    compiler: solc.version(),
    settings: SETTINGS,
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
  };
  return `${JSON.stringify(artefact, null, 2)}\n`;
}
