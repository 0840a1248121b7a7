/**
 * The proxy cannot start on its store: the file cannot be opened or migrated (a full disk, a
 * read-only mount, another process holding it) or Redis cannot be reached. The message names the
 * setting and the reason, and is all the proxy prints before it exits (no stack: it is no bug).
 */
export class StoreOpenError extends Error {
  constructor(
    readonly setting: 'KASSA_DB' | 'KASSA_REDIS_URL',
    where: string,
    reason: string,
  ) {
    super(`${setting} ${where}: ${reason}`);
    this.name = 'StoreOpenError';
  }
}
