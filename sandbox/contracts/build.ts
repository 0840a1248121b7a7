/** `npm run contracts`: recompiles the Solidity sources into the artefacts the sandbox deploys. */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { artefactPath, compileArtefact, CONTRACTS } from './compile.ts';

for (const name of CONTRACTS) {
  const started = performance.now();
  writeFileSync(artefactPath(name), compileArtefact(name));
  console.log(`wrote ${relative(process.cwd(), artefactPath(name))} in ${Math.round(performance.now() - started)} ms`);
}
