import { KEYS, readLocal, writeLocal } from './storage.ts';

/** The origins the user let see the wallet's account, each approved in the approval window. */
type Connections = Record<string, { connectedAt: string }>;

const read = async (): Promise<Connections> => (await readLocal<Connections>(KEYS.connections)) ?? {};

export async function isConnected(origin: string): Promise<boolean> {
  return Object.hasOwn(await read(), origin);
}

export async function connectedOrigins(): Promise<string[]> {
  return Object.keys(await read()).sort();
}

export async function connect(origin: string): Promise<void> {
  await writeLocal(KEYS.connections, { ...(await read()), [origin]: { connectedAt: new Date().toISOString() } });
}

export async function disconnect(origin: string): Promise<boolean> {
  const connections = await read();
  if (!Object.hasOwn(connections, origin)) return false;
  delete connections[origin];
  await writeLocal(KEYS.connections, connections);
  return true;
}
