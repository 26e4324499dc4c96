import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';
import { OUTBOUND_FAILURE, OutboundError } from './errors.js';

/**
 * Server-side request forgery defence for every request Siteward makes to another server (the
 * partner connection check).
 *
 * The threat: a user sets base_url or mcp_url to an address only the server can reach (the cloud
 * metadata service, a database admin page on loopback, a router on the office LAN) and reads the
 * answer back through last_error. So every address a request would connect to is classified after
 * DNS resolution, and the connection is then made to exactly that address (see guarded-fetch.ts),
 * which a DNS answer that changes between check and connect (rebinding) cannot get around.
 */

export type AddressClass =
  | { kind: 'public' }
  /** Loopback, private, link-local, shared (CGNAT) or unique-local: allowed only when configured. */
  | { kind: 'private'; reason: string }
  /** Never a partner service, whatever the configuration: metadata, unspecified, multicast, reserved. */
  | { kind: 'forbidden'; reason: string };

/**
 * Cloud metadata endpoints hand out instance credentials. They are refused even with
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS=true, which exists for partner services on the local network,
 * not for these. (AWS/GCP/Azure/OpenStack 169.254.169.254, ECS task metadata 169.254.170.2,
 * Alibaba 100.100.100.200, Azure wireserver 168.63.129.16, AWS over IPv6 fd00:ec2::254.)
 */
const METADATA_ADDRESSES = new BlockList();
for (const address of ['169.254.169.254', '169.254.170.2', '100.100.100.200', '168.63.129.16']) METADATA_ADDRESSES.addAddress(address, 'ipv4');
METADATA_ADDRESSES.addAddress('fd00:ec2::254', 'ipv6');

function blockList(subnets: Array<[network: string, prefix: number, family: 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [network, prefix, family] of subnets) list.addSubnet(network, prefix, family);
  return list;
}

const FORBIDDEN = blockList([
  ['0.0.0.0', 8, 'ipv4'], // "this network"; 0.0.0.0 reaches loopback on Linux
  ['192.0.2.0', 24, 'ipv4'], // documentation
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['100::', 64, 'ipv6'], // discard
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['ff00::', 8, 'ipv6'], // multicast
]);

const PRIVATE: Array<[BlockList, string]> = [
  [blockList([['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']]), 'loopback address'],
  [blockList([['10.0.0.0', 8, 'ipv4'], ['172.16.0.0', 12, 'ipv4'], ['192.168.0.0', 16, 'ipv4'], ['192.0.0.0', 24, 'ipv4'], ['198.18.0.0', 15, 'ipv4']]), 'private address'],
  [blockList([['100.64.0.0', 10, 'ipv4']]), 'shared (carrier-grade NAT) address'],
  [blockList([['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']]), 'link-local address'],
  [blockList([['fc00::', 7, 'ipv6'], ['fec0::', 10, 'ipv6']]), 'unique-local address'],
];

/**
 * IPv6 forms that carry an IPv4 address (::ffff:10.0.0.1, NAT64 64:ff9b::a00:1, 6to4 2002:a00:1::)
 * are judged by the IPv4 address inside, so ::ffff:127.0.0.1 is loopback like 127.0.0.1.
 */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (groups === undefined) return undefined;
  const toIpv4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return toIpv4(groups[6] ?? 0, groups[7] ?? 0); // IPv4-mapped
  if (zeros(0, 6) && !(groups[6] === 0 && (groups[7] ?? 0) <= 1)) return toIpv4(groups[6] ?? 0, groups[7] ?? 0); // IPv4-compatible (deprecated)
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return toIpv4(groups[6] ?? 0, groups[7] ?? 0); // NAT64
  if (groups[0] === 0x2002) return toIpv4(groups[1] ?? 0, groups[2] ?? 0); // 6to4
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (zone id dropped), or undefined if it is not one. */
function expandIpv6(address: string): number[] | undefined {
  let text = address.split('%')[0] ?? '';
  if (isIP(text) !== 6) return undefined;
  // A dotted IPv4 tail becomes two hex groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  const all = tail === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  return all.map((group) => Number.parseInt(group, 16));
}

export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) return { kind: 'forbidden', reason: 'not an IP address' };
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (METADATA_ADDRESSES.check(address, type)) return { kind: 'forbidden', reason: 'cloud metadata address' };
  if (type === 'ipv6') {
    const inner = embeddedIpv4(address);
    if (inner !== undefined) return classifyAddress(inner);
  }
  if (FORBIDDEN.check(address, type)) return { kind: 'forbidden', reason: 'reserved, multicast or unspecified address' };
  for (const [list, reason] of PRIVATE) {
    if (list.check(address, type)) return { kind: 'private', reason };
  }
  return { kind: 'public' };
}

/** Decides which addresses a check may connect to. Tests inject their own. */
export type AddressPolicy = (address: string) => { allowed: true } | { allowed: false; reason: string };

export function defaultAddressPolicy(allowPrivateNetworks: boolean): AddressPolicy {
  return (address) => {
    const found = classifyAddress(address);
    if (found.kind === 'public') return { allowed: true };
    if (found.kind === 'private' && allowPrivateNetworks) return { allowed: true };
    const hint = found.kind === 'private' ? ' (not allowed on this server; its administrator can allow private networks)' : '';
    return { allowed: false, reason: `${found.reason}${hint}` };
  };
}

/** The policy refused an address; `reason` is ours and names no host. */
export class AddressRefusedError extends OutboundError {
  override name = 'AddressRefusedError';

  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(OUTBOUND_FAILURE.blocked, message);
  }
}

export class DnsLookupError extends OutboundError {
  override name = 'DnsLookupError';

  constructor(message: string) {
    super(OUTBOUND_FAILURE.unreachable, message);
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses; injectable so tests can name hosts freely. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
};

/**
 * The addresses to connect to for `hostname`, each allowed by the policy. If any address the name
 * resolves to is refused, the whole name is: an attacker who controls a DNS zone could otherwise
 * list a public address next to a private one and hope the connection picks the second.
 */
export async function resolveAllowedAddresses(hostname: string, policy: AddressPolicy, resolver: Resolver): Promise<ResolvedAddress[]> {
  // URL hostnames keep IPv6 literals in brackets.
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  let addresses: ResolvedAddress[];
  const literal = isIP(bare);
  if (literal !== 0) {
    addresses = [{ address: bare, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await resolver(bare);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new DnsLookupError(`DNS lookup for ${bare} failed (${typeof code === 'string' && /^[A-Z_]{1,32}$/.test(code) ? code : 'failed'})`);
    }
    if (addresses.length === 0) throw new DnsLookupError(`DNS lookup for ${bare} returned no address`);
  }
  for (const { address } of addresses) {
    const verdict = policy(address);
    if (!verdict.allowed) {
      const shown = literal !== 0 ? bare : `${bare} (${address})`;
      throw new AddressRefusedError(`refused to connect to ${shown}: ${verdict.reason}`, verdict.reason);
    }
  }
  return addresses;
}
