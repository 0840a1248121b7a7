import type { ChainableCommander, Redis } from 'ioredis';
import { StoreUnavailableError } from '../store.ts';

/**
 * Anything Redis fails a command with (refused, timed out, disconnected, an error reply) means the
 * store is unavailable (503), not a bug (500). Set on the connection: every command, alone, in a
 * pipeline or MULTI, or a script's, is sent through `sendCommand` and failed through its `reject`.
 */
export function failAsUnavailable(redis: Redis): void {
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
    const [command] = args;
    const reject = command.reject;
    command.reject = (error) => {
      // ioredis answers NOSCRIPT itself (it sends the script and runs it again): that one stays as it is.
      const kept = error instanceof StoreUnavailableError || error.message.startsWith('NOSCRIPT');
      reject(kept ? error : new StoreUnavailableError(error));
    };
    return send(...args);
  };
}

/**
 * A pipeline's replies in order. `exec` reports a command's failure beside the replies instead of
 * rejecting, so without this a failed read would be taken for an empty one (a count of 0, no state).
 */
export async function replies(pipeline: ChainableCommander): Promise<unknown[]> {
  return ((await pipeline.exec()) ?? []).map(([error, reply]) => {
    if (error) throw error instanceof StoreUnavailableError ? error : new StoreUnavailableError(error);
    return reply;
  });
}
