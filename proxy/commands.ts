/**
 * `kassa-proxy operators add|list` and `kassa-proxy audit verify`: run beside a running proxy, on the
 * store its settings name (SQLite by its file, whose one-process lock the proxy holds on `<file>.lock`
 * only; PostgreSQL and Redis by their URLs). For deployments and tests without a browser.
 */
import { parseArgs } from 'node:util';
import { roleSchema, operatorEmailSchema, operatorNameSchema, ROLES } from '../schemas/operators.ts';
import { describeZodError } from '../lib/zod-message.ts';
import { createLogger } from './logger.ts';
import { AuditTrail, CLI_ACTOR, NO_CONTEXT } from './operator/audit-trail.ts';
import { Credentials } from './operator/credentials.ts';
import { DomainError } from './domain/domain-errors.ts';
import { OperatorAccounts } from './operator/operators.ts';
import { ConfigError, settingsSource, type SettingsSource } from './config-readers.ts';
import { openStore } from './state/open-backend.ts';
import type { Store } from './state/store.ts';
import { parseStoreSettings, type StoreSettings } from './state/store-settings.ts';

export const COMMANDS_HELP = `Commands (on the store the settings name, beside a running proxy or not):
  kassa-proxy operators add --name NAME --email EMAIL --role ${ROLES.join('|')} [--token] [--token-days N]
      an operator; prints a one-time invitation link (72 h), or with --token an active operator and a
      personal API token (shown once; 90 days unless --token-days, at most 365)
  kassa-proxy operators list
  kassa-proxy audit verify
      walks the audit trail's hash chain; exit code 1 at the first record edited, removed or inserted`;

export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Whether `argv` (after `kassa-proxy`) names a command rather than starting the proxy. */
export const isCommand = (argv: readonly string[]): boolean => argv[0] === 'operators' || argv[0] === 'audit';

/** Runs one command; its exit code (0 done, 1 failed or found a fault, 2 a usage or settings error). */
export async function runCommand(argv: readonly string[], env: SettingsSource, io: CommandIo): Promise<number> {
  let settings: StoreSettings & {
    publicUrl?: string | undefined;
    host?: string | undefined;
    port?: string | undefined;
  };
  try {
    const source = settingsSource(env);
    settings = {
      ...parseStoreSettings(source),
      publicUrl: source.KASSA_PUBLIC_URL,
      host: source.HOST,
      port: source.PORT,
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`kassa-proxy: bad configuration: ${error.message}`);
    return 2;
  }
  const [group, action, ...rest] = argv;
  const logger = createLogger({ level: 'error', sink: io.err, secrets: [] });
  const run = async (command: (store: Store) => Promise<number>) => {
    const opened = await openStore(settings, logger);
    try {
      return await command(opened.store);
    } finally {
      await opened.close();
    }
  };
  if (group === 'operators' && action === 'list') return run((store) => listOperators(store, io));
  if (group === 'audit' && action === 'verify') return run((store) => verifyAudit(store, io));
  if (group === 'operators' && action === 'add') {
    const parsed = parseAdd(rest);
    if (typeof parsed === 'string') {
      io.err(`kassa-proxy operators add: ${parsed}\n${COMMANDS_HELP}`);
      return 2;
    }
    const origin =
      settings.publicUrl?.replace(/\/+$/, '') ?? `http://${settings.host || '127.0.0.1'}:${settings.port || '8787'}`;
    return run((store) => addOperator(store, parsed, origin, io));
  }
  io.err(COMMANDS_HELP);
  return 2;
}

interface AddArguments {
  name: string;
  email: string;
  role: (typeof ROLES)[number];
  token: boolean;
  tokenDays: number | undefined;
}

/** `--name --email --role [--token] [--token-days]`, checked as the proxy's routes check them; a string says what is wrong. */
export function parseAdd(args: readonly string[]): AddArguments | string {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        name: { type: 'string' },
        email: { type: 'string' },
        role: { type: 'string' },
        token: { type: 'boolean' },
        'token-days': { type: 'string' },
      },
      strict: true,
    }));
  } catch (error) {
    return (error as Error).message;
  }
  const name = operatorNameSchema.safeParse(values.name);
  if (!name.success) return describeZodError(name.error);
  const email = operatorEmailSchema.safeParse(values.email);
  if (!email.success) return describeZodError(email.error);
  const role = roleSchema.safeParse(values.role);
  if (!role.success) return describeZodError(role.error);
  const days = values['token-days'] === undefined ? undefined : Number(values['token-days']);
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 365))
    return '--token-days must be a whole number from 1 to 365';
  return { name: name.data, email: email.data, role: role.data, token: values.token ?? false, tokenDays: days };
}

async function addOperator(store: Store, args: AddArguments, origin: string, io: CommandIo): Promise<number> {
  const accounts = new OperatorAccounts(store.operators, new Credentials(store.operators), new AuditTrail(store.audit));
  const input = { name: args.name, email: args.email, role: args.role };
  const acting = { actor: CLI_ACTOR, context: NO_CONTEXT };
  try {
    if (args.token) {
      const added = await accounts.addWithToken(
        { ...input, tokenName: 'kassa-proxy operators add', expiresInDays: args.tokenDays },
        acting,
      );
      io.out(
        `Added ${added.operator.name} <${added.operator.email}> as ${added.operator.role} (${added.operator.operatorId}).`,
      );
      io.out(`Personal API token, shown once, valid until ${new Date(added.expiresAt).toISOString()}:`);
      io.out(added.token);
    } else {
      const invited = await accounts.invite(input, acting);
      io.out(
        `Invited ${invited.operator.name} <${invited.operator.email}> as ${invited.operator.role} (${invited.operator.operatorId}).`,
      );
      io.out(`Send them this one-time link (valid until ${new Date(invited.expiresAt).toISOString()}):`);
      io.out(`${origin}/operator/invite#${invited.token}`);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    io.err(`kassa-proxy operators add: ${error.message}`);
    return 1;
  }
}

async function listOperators(store: Store, io: CommandIo): Promise<number> {
  const operators = await store.operators.listOperators();
  if (!operators.length) io.out('No operators yet.');
  for (const operator of operators)
    io.out(
      `${operator.operatorId}  ${operator.role.padEnd(7)}  ${operator.state.padEnd(9)}  ${operator.name} <${operator.email}>`,
    );
  return 0;
}

async function verifyAudit(store: Store, io: CommandIo): Promise<number> {
  const report = await new AuditTrail(store.audit).verify();
  if (report.ok) {
    io.out(`The audit trail verifies: ${report.records} records, the last one's hash ${report.headHash}.`);
    io.out('Keep that hash apart from the store: a later verify must still show the records up to it.');
    return 0;
  }
  io.err(`The audit trail does not verify: ${report.message}.`);
  return 1;
}
