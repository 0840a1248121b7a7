/**
 * Where the proxy keeps its state (open-backend.ts opens it): SQLite's file by default, PostgreSQL
 * (`KASSA_DATABASE_URL`) or Redis (`KASSA_REDIS_URL`) for a fleet, never both.
 */
import { z } from 'zod';
import { ConfigError, integer, required, type SettingsSource } from '../config-readers.ts';

export interface DatabaseSettings {
  /** `postgres://` or `postgresql://`, TLS as node-postgres reads it (`?sslmode=verify-full&sslrootcert=…`). */
  url: string;
  /** Connections each instance opens at most (one more listens for notifications). */
  poolSize: number;
}

export interface StoreSettings {
  dbPath: string;
  /** A fleet shares its state through Redis; without it, one process with SQLite. */
  redisUrl: string | null;
  /** Prefix of every Redis key, so several shops (or tests) can share one Redis. */
  redisPrefix: string;
  /** A fleet (or one process) keeps its state in PostgreSQL; never with Redis as well. */
  database: DatabaseSettings | null;
}

export function parseStoreSettings(source: SettingsSource): StoreSettings {
  return {
    dbPath: source.KASSA_DB || './data/kassa.db',
    redisUrl: source.KASSA_REDIS_URL
      ? required(
          'KASSA_REDIS_URL',
          z.string().regex(/^rediss?:\/\/\S+$/, 'must be a redis:// or rediss:// URL'),
          source.KASSA_REDIS_URL,
        )
      : null,
    redisPrefix: source.KASSA_REDIS_PREFIX
      ? required(
          'KASSA_REDIS_PREFIX',
          z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be 1 to 64 of A-Z a-z 0-9 : _ -'),
          source.KASSA_REDIS_PREFIX,
        )
      : 'kassa:',
    database: parseDatabase(source),
  };
}

function parseDatabase(source: SettingsSource): DatabaseSettings | null {
  const url = source.KASSA_DATABASE_URL?.trim();
  if (!url) return null;
  if (source.KASSA_REDIS_URL?.trim())
    throw new ConfigError(
      'KASSA_DATABASE_URL',
      'cannot be set with KASSA_REDIS_URL: the state lives in one store, PostgreSQL or Redis; unset one of them',
    );
  return {
    url: required(
      'KASSA_DATABASE_URL',
      z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// or postgresql:// URL'),
      url,
    ),
    poolSize: integer('KASSA_DATABASE_POOL_SIZE', source.KASSA_DATABASE_POOL_SIZE, 10, 1, 500),
  };
}
