/**
 * `npm start -- --lan`: the address of this computer that a phone on the same network can open, from
 * its network interfaces: a private-network IPv4 address (RFC 1918), or the one named (`--lan ADDRESS`).
 */
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { isPrivateIpv4 } from '../lib/private-http.ts';

export interface LanAddress {
  address: string;
  /** The interface's name (`eth0`, `wlan0`, `en0`). */
  interface: string;
}

export type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

export class LanAddressError extends Error {}

/** Bridges of containers and virtual machines: networks of this computer alone, where no phone is. */
const VIRTUAL = /^(docker|br-|veth|virbr|vboxnet|vmnet|podman|cni|lxc|lxd)/;

/** Home networks first (192.168/16), then 10/8, then 172.16/12 (where containers' networks usually are). */
const rank = ({ address, interface: name }: LanAddress) =>
  (VIRTUAL.test(name) ? 10 : 0) + (address.startsWith('192.168.') ? 0 : address.startsWith('10.') ? 1 : 2);

/** This computer's private-network IPv4 addresses, the likeliest to be a phone's network first. */
export function lanAddresses(interfaces: Interfaces = networkInterfaces()): LanAddress[] {
  return Object.entries(interfaces)
    .flatMap(([name, infos]) =>
      (infos ?? [])
        .filter((info) => info.family === 'IPv4' && !info.internal && isPrivateIpv4(info.address))
        .map((info) => ({ address: info.address, interface: name })),
    )
    .sort((a, b) => rank(a) - rank(b));
}

const RFC_1918 = '10/8, 172.16/12, 192.168/16';

/**
 * The address to serve the demo on for a phone: `requested`, when it is a private-network IPv4 address of
 * this computer (or 127.0.0.1: the same wiring on this computer alone, as the tests run it); otherwise the
 * first of `lanAddresses`. Throws a LanAddressError saying what to do when there is none.
 */
export function chooseLanAddress(
  requested: string | undefined,
  interfaces: Interfaces = networkInterfaces(),
): { chosen: LanAddress; others: LanAddress[] } {
  const found = lanAddresses(interfaces);
  const known = found.map(({ address, interface: name }) => `${address} (${name})`).join(', ') || 'none';
  if (requested === undefined) {
    const [chosen, ...others] = found;
    if (!chosen)
      throw new LanAddressError(
        `--lan: this computer has no private-network IPv4 address (${RFC_1918}) for a phone to reach: join the phone's network (Wi-Fi or cable), or name an address: --lan <address>`,
      );
    return { chosen, others };
  }
  if (!isPrivateIpv4(requested) && requested !== '127.0.0.1')
    throw new LanAddressError(
      `--lan ${requested}: not a private-network IPv4 address (${RFC_1918}); this computer's: ${known}`,
    );
  const owner = Object.entries(interfaces).find(([, infos]) => infos?.some((info) => info.address === requested));
  if (!owner)
    throw new LanAddressError(`--lan ${requested}: not an address of this computer; its private ones: ${known}`);
  return {
    chosen: { address: requested, interface: owner[0] },
    others: found.filter(({ address }) => address !== requested),
  };
}
