/**
 * How a setting is read: the readers every part's settings use (config.ts, the features'
 * `*-settings.ts`, state/store-settings.ts), each failing with a ConfigError that names the setting.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** The settings as read: the environment over KASSA_CONFIG_FILE's values. */
export type SettingsSource = Record<string, string | undefined>;

/** The environment, over the JSON file KASSA_CONFIG_FILE names (if any): what every reader reads. */
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

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(`${setting}: ${problem}`);
  }
}

const SECRET_MIN = 16;

/** A switch: `1`, `true` or `yes` turns it on. */
export const isOn = (value: string | undefined) => ['1', 'true', 'yes'].includes((value ?? '').toLowerCase());

export const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export const baseUrl = () =>
  z
    .string({ error: 'is required' })
    .refine((value) => {
      try {
        const url = new URL(value);
        return (
          (url.protocol === 'https:' || url.protocol === 'http:') &&
          !url.username &&
          !url.password &&
          !url.search &&
          !url.hash
        );
      } catch {
        return false;
      }
    }, `must be an absolute http(s) URL without credentials, query or fragment`)
    .transform((value) => value.replace(/\/+$/, ''));

export const secret = z
  .string({ error: 'is required' })
  .min(SECRET_MIN, `must be at least ${SECRET_MIN} characters`)
  .refine((value) => !/\s/.test(value), 'must not contain whitespace');

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

/** Each value of a list setting, parsed; a value `parse` throws for names the setting. */
export function each<T>(setting: string, values: string[], parse: (value: string) => T): T[] {
  return values.map((value) => {
    try {
      return parse(value);
    } catch (error) {
      throw new ConfigError(setting, `"${value}" is invalid: ${(error as Error).message}`);
    }
  });
}
