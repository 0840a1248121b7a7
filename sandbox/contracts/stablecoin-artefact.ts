import { readArtefact } from './compile.ts';

/** The compiled KassaStablecoin (`npm run contracts`), read as committed: start-up never compiles. */
export const STABLECOIN_ARTEFACT = readArtefact('KassaStablecoin');
