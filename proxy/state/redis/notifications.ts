import type { Logger } from '../../logger.ts';
import type { FleetChannel } from '../fleet-coordination.ts';
import type { RedisConnections } from './database.ts';

/**
 * A channel through Redis pub/sub: every instance subscribes once and hands what comes to its own
 * listeners (its own messages come back to it too). Pub/sub keeps nothing for a subscriber that was
 * away, so after a reconnect listeners are told to look at the store again.
 */
export function pubSubChannel(connections: RedisConnections, channel: string, logger: Logger): FleetChannel {
  const { command, subscriber } = connections;
  return {
    async publish(message) {
      await command.publish(channel, message);
    },
    listen(handlers) {
      let connectedBefore = false;
      subscriber.on('message', (from: string, text: string) => {
        if (from === channel) handlers.message(text);
      });
      subscriber.on('ready', () => {
        if (connectedBefore) handlers.resync();
        connectedBefore = true;
      });
      void subscriber
        .subscribe(channel)
        .catch((error: unknown) => logger.error('cannot subscribe', { error, channel }));
    },
  };
}

/** Says, once for the subscriber, when it is back after a drop: streams then look at the store again. */
export function sayWhenBack(connections: RedisConnections, logger: Logger): void {
  let connectedBefore = false;
  connections.subscriber.on('ready', () => {
    if (connectedBefore) logger.info('status bus reconnected; streams look at the store again');
    connectedBefore = true;
  });
}
