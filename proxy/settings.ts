/**
 * How settings are read, shared by the proxy's configuration (config.ts) and the `kassa-proxy`
 * commands that need only the store's (store-settings.ts): environment variables, optionally under a
 * JSON file named by KASSA_CONFIG_FILE (same keys; the environment wins), each refused with a message
 * that names it.
 */
import { readFileSync } from 'node:fs';
import type { z } from 'zod';

export type SettingsSource = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(`${setting}: ${problem}`);
  }
}

/** The environment, over the JSON file KASSA_CONFIG_FILE names (if any). */
export function settingsSource(env: SettingsSource): SettingsSource {
  if (!env.KASSA_CONFIG_FILE) return env;
  let file: unknown;
  try {
    file = JSON.parse(readFileSync(env.KASSA_CONFIG_FILE, 'utf8'));
  } catch (error) {
    throw new ConfigError('KASSA_CONFIG_FILE', `cannot read ${env.KASSA_CONFIG_FILE}: ${(error as Error).message}`);
  }
  if (typeof file !== 'object' || file === null || Array.isArray(file))
    throw new ConfigError('KASSA_CONFIG_FILE', 'must hold a JSON object of settings');
  const fromFile = Object.fromEntries(
    Object.entries(file).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
  );
  return { ...fromFile, ...env };
}

export function integer(
  setting: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max)
    throw new ConfigError(setting, `must be a whole number from ${min} to ${max}, not "${value}"`);
  return number;
}

export function required<T>(setting: string, schema: z.ZodType<T>, value: string | undefined): T {
  const parsed = schema.safeParse(value === '' ? undefined : value);
  if (!parsed.success) throw new ConfigError(setting, parsed.error.issues[0]?.message ?? 'is invalid');
  return parsed.data;
}
