import { StoreUnavailableError } from '../store.ts';

/** Runs a Redis call; anything Redis throws means the store is unavailable (503), not a bug (500). */
export async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError(error);
  }
}
