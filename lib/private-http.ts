/**
 * The one exception to the address rule of url-rules.ts, for trying Kassa with a real phone on the
 * local sandbox (`npm start -- --lan`): plain http to a private-network IPv4 literal as well, where the
 * proxy's KASSA_ALLOW_PRIVATE_HTTP or the sandbox's --allow-private-http turns it on. Not the widget's:
 * it stays out of kassa.js.
 */
import { isHttpsOrLoopback, isLoopbackHost } from './url-rules.ts';

const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

/**
 * An IPv4 address of a private network (RFC 1918: 10/8, 172.16/12, 192.168/16), written as URLs write
 * it (dotted, no leading zeros). Never a name, which any DNS can point anywhere; not link-local
 * (169.254/16: a computer's address when no network gave it one) nor a carrier's shared space (100.64/10).
 */
export function isPrivateIpv4(hostname: string): boolean {
  const match = IPV4.exec(hostname);
  if (!match) return false;
  const [a, b] = [Number(match[1]), Number(match[2])];
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

/** A host on this computer or its network: loopback, or a private-network IPv4 literal. */
export const isLocalNetworkHost = (hostname: string): boolean => isLoopbackHost(hostname) || isPrivateIpv4(hostname);

/**
 * isHttpsOrLoopback, and with `privateHttp` plain http to a private-network IPv4 literal too; never
 * credentials in the URL.
 */
export function isHttpsOrLocalHttp(value: string, privateHttp: boolean): boolean {
  if (isHttpsOrLoopback(value)) return true;
  if (!privateHttp || !URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === 'http:' && !url.username && !url.password && isPrivateIpv4(url.hostname);
}
