import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';
import { Hono } from 'hono';
import {
  ConflictError,
  GoneError,
  InvalidInputError,
  MisconfiguredError,
  NotAllowedError,
  NotFoundError,
  RefusedError,
  UntrustedAnswerError,
  UpstreamFailedError,
  UpstreamUnavailableError,
} from '../../proxy/domain/domain-errors.ts';
import { answerErrors } from '../../proxy/http/error-answers.ts';
import { HttpProblem } from '../../proxy/http/http-problem.ts';
import { createLogger } from '../../proxy/logger.ts';
import { StoreUnavailableError } from '../../proxy/state/store.ts';
import { UpstreamError, type UpstreamFailure } from '../../proxy/upstream/upstream-error.ts';

/** What the app answers when a route throws `error`: through the error handler app.ts installs. */
async function answerTo(error: Error) {
  const lines: string[] = [];
  const app = new Hono();
  app.get('/', () => {
    throw error;
  });
  app.onError(answerErrors(createLogger({ level: 'debug', sink: (line) => lines.push(line) })));
  const response = await app.request('/');
  return {
    status: response.status,
    retryAfter: response.headers.get('Retry-After'),
    body: (await response.json()) as unknown,
    logged: lines.map((line) => JSON.parse(line) as { level: string; msg: string }),
  };
}

describe('proxy: domain errors become answers at the edge (http/error-answers.ts)', () => {
  it('gives each kind of domain error its status, its Retry-After and its {error} body', async () => {
    const cases: Array<[Error, number, string | null, unknown]> = [
      [
        new InvalidInputError('returnUrl must be an absolute URL'),
        400,
        null,
        { error: 'returnUrl must be an absolute URL' },
      ],
      [new NotAllowedError('Open amounts are not enabled'), 403, null, { error: 'Open amounts are not enabled' }],
      [new NotFoundError('Unknown checkout'), 404, null, { error: 'Unknown checkout' }],
      [new ConflictError('This checkout is already paid'), 409, null, { error: 'This checkout is already paid' }],
      [new ConflictError('Being started', { retryAfterSeconds: 2 }), 409, '2', { error: 'Being started' }],
      [new GoneError('This checkout has expired'), 410, null, { error: 'This checkout has expired' }],
      [
        new RefusedError('amount must be from 1.00 to 500.00 eEUR', { details: { reason: 'below-minimum' } }),
        422,
        null,
        { error: 'amount must be from 1.00 to 500.00 eEUR', details: { reason: 'below-minimum' } },
      ],
      [new MisconfiguredError('settings need attention'), 500, null, { error: 'settings need attention' }],
      [new UntrustedAnswerError('a payment page not trusted'), 502, null, { error: 'a payment page not trusted' }],
      [new UpstreamUnavailableError('the chain did not answer', 5), 503, '5', { error: 'the chain did not answer' }],
    ];
    for (const [error, status, retryAfter, body] of cases) {
      const answer = await answerTo(error);
      assert.deepEqual([answer.status, answer.retryAfter, answer.body], [status, retryAfter, body], error.name);
      assert.deepEqual(answer.logged, [], `${error.name} is the caller's business, not a log line`);
    }
  });

  it('tells an upstream failure to a customer in plain words, to a client in the service’s own', async () => {
    const failed = (failure: UpstreamFailure, audience: 'customer' | 'client') =>
      new UpstreamFailedError(
        new UpstreamError(
          'pay',
          failure,
          'the service said no',
          failure === 'rate_limited' ? { retryAfterMs: 7_500 } : {},
        ),
        audience,
      );
    const cases: Array<[UpstreamFailure, 'customer' | 'client', number, string | null, string]> = [
      ['rate_limited', 'customer', 429, '8', 'Too many requests right now; try again in 8 s'],
      ['rate_limited', 'client', 429, '8', 'Too many requests right now; try again in 8 s'],
      ['credentials', 'customer', 503, '60', 'Payments are unavailable right now. Please try again later.'],
      ['credentials', 'client', 502, null, "the service said no; the operator should check the proxy's health"],
      ['unavailable', 'customer', 502, '5', 'The bank payment service is not answering. Please try again.'],
      ['unavailable', 'client', 502, '5', 'the service said no'],
      ['rejected', 'customer', 502, null, 'The payment service refused this payment: the service said no'],
      ['rejected', 'client', 400, null, 'the service said no'],
    ];
    for (const [failure, audience, status, retryAfter, message] of cases) {
      const answer = await answerTo(failed(failure, audience));
      assert.deepEqual(
        [answer.status, answer.retryAfter, answer.body],
        [status, retryAfter, { error: message }],
        `${failure} told to a ${audience}`,
      );
    }
  });

  it('answers HttpProblem as thrown, the store away with 503, and anything else with a logged 500', async () => {
    const problem = await answerTo(new HttpProblem(401, 'Send Authorization', { 'WWW-Authenticate': 'Bearer' }));
    assert.deepEqual([problem.status, problem.body, problem.logged], [401, { error: 'Send Authorization' }, []]);

    const store = await answerTo(new StoreUnavailableError(new Error('disk I/O error')));
    assert.deepEqual(
      [store.status, store.retryAfter, store.body],
      [503, '2', { error: 'Kassa cannot reach its store right now; try again in a moment' }],
    );
    assert.deepEqual(
      store.logged.map(({ level, msg }) => [level, msg]),
      [['warn', 'store unavailable']],
    );

    const bug = await answerTo(new TypeError("Cannot read properties of undefined (reading 'x')"));
    assert.deepEqual([bug.status, bug.body], [500, { error: 'Internal error' }], 'no internals in the answer');
    assert.deepEqual(
      bug.logged.map(({ level, msg }) => [level, msg]),
      [['error', 'unhandled error']],
    );
  });
});

describe('proxy: lint keeps status codes at the edge (eslint.config.js)', () => {
  const root = join(import.meta.dirname, '..', '..');
  // Only the rule under test, without type information (it needs none): quick.
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-syntax',
  });
  /** The lines the rule flags, were `code` the module at `filePath`. */
  const flagged = async (filePath: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
    assert.deepEqual(
      result!.messages.filter((message) => message.fatal),
      [],
      'the fixture parses',
    );
    return result!.messages.map((message) => message.line);
  };

  it('refuses HttpProblem, HTTPException and status codes in domain modules', async () => {
    const code = [
      "import { HttpProblem } from '../http/http-problem.ts';",
      "import { HTTPException } from 'hono/http-exception';",
      "export const a = () => new HttpProblem(409, 'x');",
      "export const b = () => new HTTPException(404, { message: 'x' });",
      "export const c = () => new ConflictError('x', { status: 409 });",
      "export const d = () => new ConflictError('x', { retryAfterSeconds: 2 });",
    ].join('\n');
    for (const module of ['proxy/payments/payment-starter.ts', 'proxy/onramp/onramp.ts', 'proxy/state/store.ts']) {
      assert.deepEqual(await flagged(module, code), [1, 2, 3, 4, 5], module);
    }
  });

  it('lets route modules throw HttpProblem for a request’s shape and credentials only, and http/ as it must', async () => {
    const code = [
      "import { HttpProblem } from '../http/http-problem.ts';",
      "export const a = () => new HttpProblem(400, 'Request body must be a JSON object');",
      "export const b = () => new HttpProblem(401, 'Send Authorization');",
      "export const c = () => new HttpProblem(404, 'Unknown checkout');",
    ].join('\n');
    assert.deepEqual(await flagged('proxy/payments/payment-routes.ts', code), [4]);
    assert.deepEqual(await flagged('proxy/onramp/onramp-routes.ts', code), [4]);
    assert.deepEqual(await flagged('proxy/http/middleware/browser-origins.ts', code.replace('../http/', '../')), []);
  });
});
