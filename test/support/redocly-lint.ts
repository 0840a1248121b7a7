import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { runCommand } from './run-command.ts';

const root = join(import.meta.dirname, '..', '..');

export interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: unknown[];
}

/**
 * Loaded into Redocly's process: any connection it opens (telemetry, an update check) is refused
 * and reported, so the lint is proven to work offline. Unix sockets stay allowed.
 */
const NO_NETWORK = `import net from 'node:net';
import dns from 'node:dns';
const refuse = (what) => { process.stderr.write('network refused: ' + what + '\\n'); throw new Error('network refused'); };
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const target = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (target && typeof target === 'object' && target.path) return connect.apply(this, args);
  refuse(JSON.stringify(target?.host ?? target));
};
dns.lookup = (host) => refuse('dns ' + host);
dns.promises.lookup = async (host) => refuse('dns ' + host);
`;

/** `redocly lint` with its recommended rules on a document, as a merchant's CI would run it, offline. */
export async function redoclyLint(document: unknown): Promise<LintReport> {
  const dir = mkdtempSync(join(tmpdir(), 'kassa-openapi-'));
  try {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
    writeFileSync(join(dir, 'no-network.mjs'), NO_NETWORK);
    const run = await runCommand(
      join(root, 'node_modules', '.bin', 'redocly'),
      ['lint', 'openapi.json', '--extends', 'recommended', '--format', 'json'],
      {
        cwd: dir,
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          NODE_OPTIONS: `--import=${join(dir, 'no-network.mjs')}`,
        },
      },
    );
    assert.doesNotMatch(run.stderr, /network refused/, 'Redocly tried to reach the network');
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as LintReport;
    assert.equal(run.status, 0, run.stdout);
    return report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
