/** `npm run contracts`: recompiles the Solidity sources into the artefact the sandbox deploys. */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { ARTEFACT_PATH, compileArtefact } from './compile.ts';

const started = performance.now();
writeFileSync(ARTEFACT_PATH, compileArtefact());
console.log(`wrote ${relative(process.cwd(), ARTEFACT_PATH)} in ${Math.round(performance.now() - started)} ms`);
