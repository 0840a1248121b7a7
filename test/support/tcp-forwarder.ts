import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP forwarder on a loopback port, as a load balancer or a DNS name in front of a database: clients
 * keep its address while the server behind it changes (a failover). A connection whose server side
 * ends is ended on the client side too, as it would be by a real proxy.
 */
export async function startForwarder(targetPort: number) {
  let target = targetPort;
  let held = false;
  let refusing = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    // A server that is down: the connection is dropped at once.
    if (refusing) return client.destroy();
    sockets.add(client);
    // A network that lost its way: the connection is taken, and nothing ever comes back.
    if (held) return;
    const upstream = connect(target, '127.0.0.1');
    sockets.add(client).add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    /** From now on nothing passes either way, on open connections or new ones (no reset, no answer). */
    hold(): void {
      held = true;
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    /** Until resume(): every open connection is dropped, and so is every new one (a server gone down). */
    refuse(): void {
      refusing = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    /** New connections pass again (the server is back). */
    resume(): void {
      refusing = false;
    },
    /** New connections go to this port from now on. */
    switchTo(port: number): void {
      target = port;
    },
    async close(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
