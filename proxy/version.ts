import packageJson from '../package.json' with { type: 'json' };

/** Kassa's version, from package.json: the one place it is written. */
export const KASSA_VERSION: string = packageJson.version;
