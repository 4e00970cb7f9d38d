// Which addresses a redirect may lead to. A public host must not be able to send the client to a service that
// only this machine or its network can reach (loopback, link-local such as cloud metadata at 169.254.169.254,
// private ranges, unique-local IPv6): a hostile server would otherwise get the reply of that service indexed as
// a paper. The check resolves the target's name first (through a hook tests replace); a name re-resolving to
// another address between the check and the connection (DNS rebinding) is not caught.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const INTERNAL = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  INTERNAL.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  INTERNAL.addSubnet(net, bits, 'ipv6');
}

/** True for a loopback, link-local, private or unspecified address (IPv4, IPv6, IPv4-mapped IPv6). */
export function isInternalAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) return INTERNAL.check(mapped[1], 'ipv4');
  const family = isIP(a);
  if (family === 4) return INTERNAL.check(a, 'ipv4');
  if (family === 6) return INTERNAL.check(a, 'ipv6');
  return false;
}

/** Resolves a host name to its addresses (an IP literal resolves to itself). */
export type HostLookup = (host: string) => Promise<string[]>;

export const systemLookup: HostLookup = async (host) => {
  const h = host.replace(/^\[|\]$/g, '');
  if (isIP(h)) return [h];
  return (await lookup(h, { all: true, verbatim: true })).map((a) => a.address);
};

/** True when any address `host` resolves to is internal (a name that does not resolve counts as not internal). */
export async function isInternalHost(host: string, resolve: HostLookup): Promise<boolean> {
  const addresses = await resolve(host).catch(() => [] as string[]);
  return addresses.some(isInternalAddress);
}
