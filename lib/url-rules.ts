/**
 * The address rule every part applies to URLs that leave Kassa (webhooks, return pages, bank pages):
 * https, or plain http only to a loopback host (the local sandbox). No zod here: the widget uses it.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export const isLoopbackHost = (hostname: string): boolean => LOOPBACK_HOSTS.has(hostname);

export function isHttpsOrLoopback(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}
