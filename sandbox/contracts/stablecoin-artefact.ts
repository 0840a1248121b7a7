import { readFileSync } from 'node:fs';
import { ARTEFACT_PATH, type ContractArtefact } from './compile.ts';

/** The compiled KassaStablecoin (`npm run contracts`), read as committed: start-up never compiles. */
export const STABLECOIN_ARTEFACT = JSON.parse(readFileSync(ARTEFACT_PATH, 'utf8')) as ContractArtefact;
