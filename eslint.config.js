// @ts-check
/**
 * `npm run lint`: ESLint, type-aware, with the rules that keep Kassa's parts apart. Prettier owns the
 * formatting (`prettier --check`, the other half of `npm run lint`), so no rule here is about layout.
 *
 * The boundaries, as a newcomer would state them:
 * - browser code (widget/, extension/) never imports server code (proxy/, sandbox/, server/,
 *   server-kit/), Node's modules or globals; the widget takes only types from zod and schemas/, so
 *   zod never reaches kassa.js; the extension takes from the widget only its public UI entry;
 * - lib/ is the ground: it imports nothing of Kassa's and nothing server-only;
 * - each part imports no other part it has no business with (the proxy never the sandbox, ...);
 * - inside the proxy, a feature folder reaches into another only through the modules that one offers
 *   (PROXY_FEATURES), and only state/ touches a store backend; state/ knows no HTTP, Hono or feature;
 *   domain/ (the typed errors, the key-material rule) is every feature's and knows no HTTP either;
 * - status codes live at the edge: outside http/ and the route modules no HttpProblem, HTTPException or
 *   status code given to an error; a route module's HttpProblem is a 400 or a 401;
 * - tests of one part never import another part's test support; what suites share is test/support/.
 */
import js from '@eslint/js';
import lit from 'eslint-plugin-lit';
import litA11y from 'eslint-plugin-lit-a11y';
import wc from 'eslint-plugin-wc';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Import patterns (gitignore style, matched against the import specifier) for each part of Kassa. */
const PART = {
  proxy: ['**/proxy/*', '**/proxy/**'],
  sandbox: ['**/sandbox/*', '**/sandbox/**'],
  server: ['**/server/*', '**/server/**'],
  serverKit: ['**/server-kit/*', '**/server-kit/**'],
  widget: ['**/widget/*', '**/widget/**'],
  extension: ['**/extension/*', '**/extension/**'],
  demo: ['**/demo/*', '**/demo/**'],
  test: ['**/test/*', '**/test/**'],
  bench: ['**/bench/*', '**/bench/**'],
};
/** Build configuration beside browser code runs in Node, at build time. */
const BUILD_CONFIGS = ['extension/vite.config.ts', 'extension/manifest.config.ts'];
const NODE_ONLY = [
  'node:*',
  'hono',
  'hono/*',
  '@hono/*',
  'better-sqlite3',
  'ioredis',
  'ky',
  'standardwebhooks',
  'prom-client',
];

/**
 * The proxy's feature folders, each with the modules it offers the other features; the rest of a
 * feature (its routes above all) is its own. http/ (the edge that mounts every feature's routes) and
 * the wiring at proxy/'s root may import any of them.
 */
const PROXY_FEATURES = {
  payments: ['checkouts.ts', 'status-view.ts', 'return-url.ts', 'merchant-auth.ts'],
  onramp: [],
  events: ['event-rules.ts'],
  operator: ['operator-auth.ts', 'permissions.ts', 'dual-control.ts', 'approvals.ts', 'approval-examples.ts'],
  bridge: ['chain-directory.ts'],
  handoff: [],
  links: [],
  monitoring: [],
};
/** A folder of the proxy, as import patterns (imports inside the proxy are relative). */
const proxyFolder = (folder) => [`**/${folder}/*`, `**/${folder}/**`];

/**
 * What makes a module speak HTTP: HttpProblem, Hono's HTTPException, or a status code given to an
 * error. Outside http/ and the route modules (`*-routes.ts`) the proxy throws the typed errors of
 * proxy/domain/domain-errors.ts instead, and http/error-answers.ts alone says which answer each is.
 */
const DOMAIN_ERRORS_INSTEAD =
  'throw an error of proxy/domain/domain-errors.ts: http/error-answers.ts gives it its status';
const HTTP_IMPORTS = [
  {
    selector: 'ImportDeclaration[source.value=/(^|\\/)http-problem(\\.ts)?$/]',
    message: `HttpProblem is the HTTP edge's (http/ and *-routes.ts); here, ${DOMAIN_ERRORS_INSTEAD}.`,
  },
  {
    selector: "ImportDeclaration[source.value='hono/http-exception']",
    message: `HTTPException is the HTTP edge's; here, ${DOMAIN_ERRORS_INSTEAD}.`,
  },
];
const HTTP_IN_DOMAIN = [
  ...HTTP_IMPORTS,
  {
    selector: 'NewExpression[callee.name=/(Error|Problem|Exception)$/] > Literal.arguments[value>=100][value<=599]',
    message: `No status code in domain code: ${DOMAIN_ERRORS_INSTEAD}.`,
  },
  {
    selector:
      'NewExpression[callee.name=/(Error|Problem|Exception)$/] Property[key.name=/^status(Code)?$/] > Literal.value',
    message: `No status code in domain code: ${DOMAIN_ERRORS_INSTEAD}.`,
  },
];
/** In a route module, HttpProblem is for what HTTP itself refuses: a request's shape (400) and its credentials (401). */
const HTTP_PROBLEM_IN_ROUTES = {
  selector: "NewExpression[callee.name='HttpProblem'][arguments.0.value!=400][arguments.0.value!=401]",
  message: `A route throws HttpProblem only for a request's shape (400) or its credentials (401); for what the domain decides, ${DOMAIN_ERRORS_INSTEAD}.`,
};

/** `no-restricted-imports` (the TypeScript one, which can let type-only imports through). */
const restrict = (...groups) => ({
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      patterns: groups.map(({ group, message, allowTypeImports = false }) => ({ group, message, allowTypeImports })),
    },
  ],
});

const proxyParts = {
  group: [...PART.sandbox, ...PART.server, ...PART.widget, ...PART.extension, ...PART.demo, ...PART.test],
  message: 'The proxy imports only lib/, schemas/ and server-kit/.',
};
/** Only state/ (and the wiring, which opens the configured backend through it) touches a backend. */
const storeBackends = {
  group: ['sql', 'sqlite', 'postgres', 'redis']
    .flatMap((backend) => proxyFolder(`state/${backend}`))
    .concat('**/open-backend.ts'),
  message: 'Outside state/, the proxy uses the store through its contract (state/store.ts), never a backend.',
};
/** For the layers under the features (state/, domain/): no Hono, nothing of http/, of `folders` or of a feature, nor the services. */
const knowsNoHttp = (folders, message) => ({
  group: [
    'hono',
    'hono/*',
    '@hono/*',
    ...['http', ...folders].flatMap(proxyFolder),
    ...Object.keys(PROXY_FEATURES).flatMap(proxyFolder),
    '**/services.ts',
  ],
  message,
});
const serverCode = {
  group: [...PART.proxy, ...PART.sandbox, ...PART.server, ...PART.serverKit, ...PART.demo, ...PART.test, ...PART.bench],
  message: 'Browser code never imports server code, tests or benchmarks.',
};
const nodeOnly = { group: NODE_ONLY, message: 'Browser code never imports Node or server-only packages.' };
const typesOnly = {
  group: ['zod', '**/schemas/*', '**/schemas/**'],
  message: 'The widget takes only types from zod and schemas/ (import type): zod must not reach kassa.js.',
  allowTypeImports: true,
};
const browserGlobals = {
  'no-restricted-globals': [
    'error',
    ...['process', 'Buffer', 'require', '__dirname', '__filename', 'global'].map((name) => ({
      name,
      message: 'Browser code has no Node globals.',
    })),
  ],
};

/** Test support of each suite folder is its own; shared support lives in test/support/. */
const TEST_PARTS = ['components', 'docs', 'e2e', 'extension', 'lib', 'proxy', 'sandbox', 'server', 'widget', 'package'];
const testBoundaries = TEST_PARTS.map((part) => ({
  files: [`test/${part}/**/*.ts`],
  rules: restrict({
    group: TEST_PARTS.filter((other) => other !== part).flatMap((other) => [
      `**/${other}/support/*`,
      `**/${other}/support/**`,
    ]),
    message: `Tests of test/${part}/ never import another suite's support; move what suites share to test/support/.`,
  }),
}));

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'data/',
      '.tmp/',
      'bench/peers/.work/',
      'sandbox/contracts/KassaStablecoin.json',
      'custom-elements.json',
      // The package's JSX declarations augment react, vue and svelte, which this repository does not install.
      'types/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      // `void promise` is how Kassa marks a promise it deliberately does not wait for.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          ignoreVoid: true,
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      // Interfaces (the stores, the coordination) are async; an implementation that needs no await stays async.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
      // Small modules named for what they do (CONTRIBUTING.md): past 400 lines a file is two modules.
      'max-lines': ['error', 400],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  { files: ['demo/public/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
  // ---- browser code ----
  {
    files: ['widget/**/*.ts', 'extension/**/*.ts'],
    ignores: BUILD_CONFIGS,
    languageOptions: { globals: { ...globals.browser } },
    plugins: { wc },
    rules: {
      ...wc.configs['flat/recommended'].rules,
      ...wc.configs['flat/best-practice'].rules,
      // LitElement always implements the lifecycle callbacks; Lit's own guides call super unguarded.
      'wc/guard-super-call': 'off',
      ...browserGlobals,
    },
  },
  { ...lit.configs['flat/recommended'], files: ['widget/**/*.ts', 'extension/**/*.ts'] },
  { ...litA11y.configs.recommended, files: ['widget/**/*.ts', 'extension/**/*.ts'] },
  {
    files: ['widget/**/*.ts'],
    rules: restrict(serverCode, nodeOnly, typesOnly, {
      group: PART.extension,
      message: 'The widget never imports the extension.',
    }),
  },
  // The scripts of the proxy's own pages (the operators', a payment link's): browser code, with types only.
  {
    files: ['operator-page/**/*.ts', 'link-page/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...browserGlobals,
      ...restrict(
        { ...serverCode, group: [...serverCode.group, '!**/proxy/operator/signin/words/en.ts'] },
        nodeOnly,
        typesOnly,
        {
          group: ['**/proxy/operator/signin/words/en.ts'],
          message: 'The page takes only the type of its words: the server writes them into the page.',
          allowTypeImports: true,
        },
        {
          group: [...PART.widget, ...PART.extension],
          message: 'A page’s script is its own (a link’s page uses <kassa-checkout> through kassa.js).',
        },
      ),
    },
  },
  {
    files: ['extension/**/*.ts'],
    ignores: BUILD_CONFIGS,
    rules: restrict(serverCode, nodeOnly, {
      group: [...PART.widget, '!**/widget/ui.ts'],
      message: 'The extension takes from the widget only its public UI entry, widget/ui.ts.',
    }),
  },
  // ---- the ground and the wire formats ----
  {
    files: ['lib/**/*.ts'],
    languageOptions: { globals: { ...globals['shared-node-browser'] } },
    rules: {
      ...restrict(
        { group: ['../*', '../**'], message: 'lib/ is the ground: it imports nothing of Kassa’s.' },
        { group: NODE_ONLY, message: 'lib/ is browser-safe: server-only helpers live in server-kit/.' },
      ),
      ...browserGlobals,
    },
  },
  {
    files: ['schemas/**/*.ts'],
    rules: restrict({
      group: Object.values(PART).flat(),
      message: 'schemas/ describes wire formats; it imports only lib/ and zod.',
    }),
  },
  // ---- server parts ----
  {
    files: ['server-kit/**/*.ts'],
    rules: restrict({
      group: [...PART.proxy, ...PART.sandbox, ...PART.server, ...PART.widget, ...PART.extension, ...PART.test],
      message: 'server-kit/ is shared by the proxy and the sandbox and imports neither.',
    }),
  },
  // The proxy: the parts it may import, then its own folders (each config restates the part rule,
  // because a later config's no-restricted-imports replaces an earlier one's for the same file).
  { files: ['proxy/**/*.ts'], rules: restrict(proxyParts) },
  ...Object.keys(PROXY_FEATURES).map((feature) => ({
    files: [`proxy/${feature}/**/*.ts`],
    rules: restrict(
      proxyParts,
      {
        group: Object.entries(PROXY_FEATURES)
          .filter(([other]) => other !== feature)
          .flatMap(([other, offered]) => [...proxyFolder(other), ...offered.map((module) => `!**/${other}/${module}`)]),
        message: `proxy/${feature}/ takes from another feature only what that one offers (PROXY_FEATURES in eslint.config.js); a module two features need belongs to the one that owns it, or to http/ or state/.`,
      },
      storeBackends,
    ),
  })),
  { files: ['proxy/http/**/*.ts', 'proxy/upstream/**/*.ts'], rules: restrict(proxyParts, storeBackends) },
  {
    files: ['proxy/domain/**/*.ts'],
    rules: restrict(
      proxyParts,
      knowsNoHttp(
        ['state'],
        'domain/ is what every feature may import: it knows no HTTP (no Hono, nothing of http/), no feature, no store and not the services.',
      ),
    ),
  },
  // Status codes live at the edge: domain code throws the typed errors of domain/domain-errors.ts, which
  // http/error-answers.ts turns into answers; a route module throws HttpProblem only for a request's shape.
  {
    files: ['proxy/**/*.ts'],
    ignores: ['proxy/http/**', 'proxy/**/*-routes.ts'],
    rules: { 'no-restricted-syntax': ['error', ...HTTP_IN_DOMAIN] },
  },
  // The upstream clients read the services' statuses (what they answered, never what Kassa answers).
  { files: ['proxy/upstream/**/*.ts'], rules: { 'no-restricted-syntax': ['error', ...HTTP_IMPORTS] } },
  {
    files: ['proxy/**/*-routes.ts'],
    ignores: ['proxy/http/**'],
    rules: { 'no-restricted-syntax': ['error', HTTP_PROBLEM_IN_ROUTES] },
  },
  {
    files: ['proxy/state/**/*.ts'],
    rules: restrict(
      proxyParts,
      knowsNoHttp(
        ['upstream'],
        'state/ knows no HTTP: it imports no Hono, nothing of http/, upstream/ or a feature, and not the services.',
      ),
    ),
  },
  {
    files: ['sandbox/**/*.ts'],
    rules: restrict({
      group: [...PART.proxy, ...PART.server, ...PART.widget, ...PART.extension, ...PART.demo, ...PART.test],
      message: 'The sandbox emulates the upstream services; it imports only lib/, schemas/ and server-kit/.',
    }),
  },
  {
    files: ['server/**/*.ts'],
    rules: restrict(
      {
        group: [...PART.proxy, ...PART.sandbox, ...PART.serverKit, ...PART.widget, ...PART.extension, ...PART.test],
        message: 'kassa/server runs in the merchant’s backend: it imports only lib/, schemas/ and standardwebhooks.',
      },
      { group: ['node:*'], message: 'kassa/server runs in any runtime with WebCrypto: no Node modules.' },
    ),
  },
  // ---- tests and benchmarks ----
  ...testBoundaries,
  {
    files: ['bench/**/*.ts'],
    rules: restrict({
      group: TEST_PARTS.flatMap((part) => [`**/test/${part}/*`, `**/test/${part}/**`]),
      message: 'Benchmarks take shared test support from test/support/ only.',
    }),
  },
  {
    // Tests and benchmarks read JSON answers as they come; asserting on them is the test.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // A suite is one file per part, however many cases it holds.
      'max-lines': 'off',
    },
  },
  {
    files: ['test/components/**/*.ts'],
    languageOptions: { globals: { ...globals.browser, ...globals.mocha } },
  },
);
