/**
 * Operators for tests, made the ways a deployment makes them: through the proxy's own accounts (a proxy
 * in this process), through `kassa-proxy operators add --token` (a proxy in another process, any
 * store), and a device token through the real device grant (RFC 8628).
 */
import { randomBytes } from 'node:crypto';
import { runCommand } from '../../proxy/commands.ts';
import { CLI_ACTOR, NO_CONTEXT } from '../../proxy/operator/audit-trail.ts';
import type { ProxyServices } from '../../proxy/services.ts';
import type { Role } from '../../schemas/operators.ts';
import { http, type HttpInit, type HttpResult } from './http.ts';

export interface TestOperator {
  operatorId: string;
  name: string;
  email: string;
  role: Role;
  /** A personal API token (`kassa_pat_…`) of theirs, with their role. */
  token: string;
  /** `Authorization: Bearer <token>`. */
  headers: { Authorization: string };
}

let made = 0;
const person = (role: Role, name?: string) => {
  const tag = `${++made}-${randomBytes(3).toString('hex')}`;
  return { name: name ?? `${role[0]!.toUpperCase()}${role.slice(1)} ${tag}`, email: `${role}-${tag}@shop.test` };
};

const withToken = (operator: Omit<TestOperator, 'headers'>): TestOperator => ({
  ...operator,
  headers: { Authorization: `Bearer ${operator.token}` },
});

/** An active operator of `role` with a personal API token, on a proxy running in this process. */
export async function addOperator(
  proxy: { services: ProxyServices },
  role: Role,
  name?: string,
): Promise<TestOperator> {
  const { operator, token } = await proxy.services.operators.accounts.addWithToken(
    { ...person(role, name), role },
    { actor: CLI_ACTOR, context: NO_CONTEXT },
  );
  return withToken({ operatorId: operator.operatorId, name: operator.name, email: operator.email, role, token });
}

/**
 * The same through `kassa-proxy operators add --token`, on the store the settings `env` name: for
 * proxies in other processes (SQLite's file beside a running proxy included).
 */
export async function addOperatorByCommand(
  env: Record<string, string | undefined>,
  role: Role,
  name?: string,
): Promise<TestOperator> {
  const { name: chosen, email } = person(role, name);
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCommand(
    ['operators', 'add', '--name', chosen, '--email', email, '--role', role, '--token'],
    env,
    { out: (line) => out.push(line), err: (line) => err.push(line) },
  );
  if (code !== 0) throw new Error(`kassa-proxy operators add failed (${code}): ${err.join('\n')}`);
  const operatorId = /\((op_[\w-]+)\)/.exec(out[0] ?? '')?.[1];
  const token = out.at(-1);
  if (!operatorId || !token?.startsWith('kassa_pat_')) throw new Error(`unexpected output: ${out.join('\n')}`);
  return withToken({ operatorId, name: chosen, email, role, token });
}

/** Calls the proxy at `origin` as `operator`. */
export const as =
  (origin: string, operator: Pick<TestOperator, 'headers'>) =>
  (path: string, init: HttpInit = {}) =>
    http(`${origin}${path}`, { ...init, headers: { ...operator.headers, ...init.headers } });

/**
 * A device token of `approver` through the real device grant: the device asks for a code, the
 * approver (with their personal token) approves it, the device polls once and gets its token.
 */
export async function deviceToken(origin: string, approver: TestOperator, clientName = 'Test device'): Promise<string> {
  const code = await http(`${origin}/operator/device/code`, { body: { client_name: clientName } });
  if (code.status !== 200) throw new Error(`device code: ${code.status} ${code.text}`);
  const approved = await as(origin, approver)('/operator/device/approve', {
    body: { user_code: code.body.user_code, approve: true },
  });
  if (approved.status !== 200) throw new Error(`device approval: ${approved.status} ${approved.text}`);
  const token = await http(`${origin}/operator/device/token`, {
    body: { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: code.body.device_code },
  });
  if (token.status !== 200) throw new Error(`device token: ${token.status} ${token.text}`);
  return token.body.access_token as string;
}

/**
 * Dual control in a test: the answer of a money route, approved by `approver` (a second person) when it
 * is a pending request (202). The approval's answer: its `state` (executed, failed) and `result`.
 */
export async function approveAs(
  origin: string,
  approver: Pick<TestOperator, 'headers'>,
  asked: HttpResult | Promise<HttpResult>,
): Promise<HttpResult> {
  const answer = await asked;
  if (answer.status !== 202) throw new Error(`expected a pending request (202), got ${answer.status} ${answer.text}`);
  return as(origin, approver)(`/api/approvals/${answer.body.approvalId}/approve`, { method: 'POST' });
}
