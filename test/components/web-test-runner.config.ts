/**
 * Component tests in real Chromium (Debian's, never a downloaded one) against a real proxy and
 * emulator (kassa-stack-plugin.ts). test/run.ts runs this with tsx, so this file and the plugin can
 * import the TypeScript sources of the proxy and the sandbox.
 */
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { defaultReporter, type TestRunnerConfig } from '@web/test-runner';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { fileURLToPath } from 'node:url';
import { PATIENCE_MS, TEST_TIMEOUT_MS } from '../support/patience.ts';
import { countReporter } from './count-reporter.ts';
import { kassaStackPlugin } from './kassa-stack-plugin.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

const config: TestRunnerConfig = {
  rootDir: root,
  files: ['test/components/**/*.test.ts'],
  hostname: '127.0.0.1',
  // Packages' browser builds (ethers maps its Node crypto to the browser's through "browser").
  nodeResolve: { browser: true },
  concurrency: 1,
  // Only hangs meet these bounds: a test waits for what it expects, however slow the machine.
  browserStartTimeout: PATIENCE_MS,
  testsStartTimeout: PATIENCE_MS,
  testsFinishTimeout: 30 * 60_000,
  // Lit's development build runs here (it warns about misuse); its one banner line is noise.
  filterBrowserLogs: ({ args }) => !String(args[0]).startsWith('Lit is in dev mode'),
  testFramework: { config: { timeout: TEST_TIMEOUT_MS, slow: 5_000 } },
  browsers: [
    playwrightLauncher({
      product: 'chromium',
      launchOptions: {
        executablePath: process.env.KASSA_CHROMIUM ?? '/usr/bin/chromium',
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      },
    }),
  ],
  // test/run.ts asks for the counts in a file of its choosing, for its summary.
  reporters: [
    defaultReporter(),
    ...(process.env.KASSA_TEST_COUNTS ? [countReporter(process.env.KASSA_TEST_COUNTS, root)] : []),
  ],
  // The compiler options esbuild needs (Lit's decorators, class fields) are in the base config.
  plugins: [esbuildPlugin({ ts: true, tsconfig: `${root}/tsconfig.base.json` }), kassaStackPlugin()],
};

export default config;
