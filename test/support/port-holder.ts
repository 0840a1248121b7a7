import { createServer } from 'node:net';

/**
 * Listens on a loopback port and drops every connection at once: the port stays taken while the
 * server that owns it is down, and clients fail as they would against a stopped server.
 */
export async function holdPort(port: number): Promise<{ close(): Promise<void> }> {
  const held = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    held.once('error', reject);
    held.listen(port, '127.0.0.1', resolve);
  });
  return {
    close: () => new Promise<void>((resolve) => held.close(() => resolve())),
  };
}
