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

type Family = 'ipv4' | 'ipv6';

/** A special-purpose block and what a request to it is: allowed, allowed only when configured, or never. */
interface SpecialPurposeBlock {
  network: string;
  prefix: number;
  family: Family;
  kind: AddressClass['kind'];
  /** Why it is refused ('' for a public block). */
  reason: string;
}

const PRIVATE_REASON = { loopback: 'loopback address', private: 'private address', shared: 'shared (carrier-grade NAT) address', linkLocal: 'link-local address', uniqueLocal: 'unique-local address' } as const;

/**
 * Every block of IANA's IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its
 * updates, as of 2025), with multicast, and what a request to it is. Loopback, private-use, shared,
 * link-local, unique-local, benchmarking and the local network's own services (the IETF protocol
 * block's continuity, PCP, TURN, SRP and NAT64-discovery addresses, answered by nearby routers even
 * where IANA calls them globally reachable) are "private": allowed only when configured. What no
 * partner can be (unspecified, documentation, reserved, discard, dummy, deprecated relays, Teredo,
 * identifiers that are not locators, multicast) is "forbidden". The public anycast services (AS112,
 * AMT) are public, like any address outside the table; two of them sit inside the IETF block and are
 * listed for that. The most specific block decides, so
 * a /128 inside a /23 is judged by its own row. The blocks that carry an IPv4 address
 * (::ffff:0:0/96, 64:ff9b::/96, 64:ff9b:1::/48, 2002::/16) are judged by it (embeddedIpv4Candidates)
 * before this table is read. src/outbound/special-purpose-registry.test.ts checks every registry
 * entry against this table.
 */
const SPECIAL_PURPOSE: readonly SpecialPurposeBlock[] = [
  // IPv4
  { network: '0.0.0.0', prefix: 8, family: 'ipv4', kind: 'forbidden', reason: '"this network" address' }, // 0.0.0.0 reaches loopback on Linux
  { network: '10.0.0.0', prefix: 8, family: 'ipv4', kind: 'private', reason: PRIVATE_REASON.private },
  { network: '100.64.0.0', prefix: 10, family: 'ipv4', kind: 'private', reason: PRIVATE_REASON.shared },
  { network: '127.0.0.0', prefix: 8, family: 'ipv4', kind: 'private', reason: PRIVATE_REASON.loopback },
  { network: '169.254.0.0', prefix: 16, family: 'ipv4', kind: 'private', reason: PRIVATE_REASON.linkLocal },
  { network: '172.16.0.0', prefix: 12, family: 'ipv4', kind: 'private', reason: PRIVATE_REASON.private },
  { network: '192.0.0.0', prefix: 24, family: 'ipv4', kind: 'private', reason: 'IETF protocol address (local network services)' },
  { network: '192.0.0.8', prefix: 32, family: 'ipv4', kind: 'forbidden', reason: 'dummy address' },
  { network: '192.0.2.0', prefix: 24, family: 'ipv4', kind: 'forbidden', reason: 'documentation address' },
  { network: '192.88.99.0', prefix: 24, family: 'ipv4', kind: 'forbidden', reason: 'deprecated relay anycast address' },
  { network: '192.168.0.0', prefix: 16, family: 'ipv4', kind: 'private', reason: PRIVATE_REASON.private },
  { network: '198.18.0.0', prefix: 15, family: 'ipv4', kind: 'private', reason: 'benchmarking address' },
  { network: '198.51.100.0', prefix: 24, family: 'ipv4', kind: 'forbidden', reason: 'documentation address' },
  { network: '203.0.113.0', prefix: 24, family: 'ipv4', kind: 'forbidden', reason: 'documentation address' },
  { network: '224.0.0.0', prefix: 4, family: 'ipv4', kind: 'forbidden', reason: 'multicast address' },
  { network: '240.0.0.0', prefix: 4, family: 'ipv4', kind: 'forbidden', reason: 'reserved address' },
  { network: '255.255.255.255', prefix: 32, family: 'ipv4', kind: 'forbidden', reason: 'broadcast address' },
  // IPv6
  { network: '::', prefix: 128, family: 'ipv6', kind: 'forbidden', reason: 'unspecified address' },
  { network: '::1', prefix: 128, family: 'ipv6', kind: 'private', reason: PRIVATE_REASON.loopback },
  { network: '100::', prefix: 64, family: 'ipv6', kind: 'forbidden', reason: 'discard-only address' },
  { network: '100:0:0:1::', prefix: 64, family: 'ipv6', kind: 'forbidden', reason: 'dummy address' },
  { network: '2001::', prefix: 23, family: 'ipv6', kind: 'forbidden', reason: 'IETF protocol address' },
  { network: '2001::', prefix: 32, family: 'ipv6', kind: 'forbidden', reason: 'Teredo address' },
  { network: '2001:1::1', prefix: 128, family: 'ipv6', kind: 'private', reason: 'IETF protocol address (local network services)' },
  { network: '2001:1::2', prefix: 128, family: 'ipv6', kind: 'private', reason: 'IETF protocol address (local network services)' },
  { network: '2001:1::3', prefix: 128, family: 'ipv6', kind: 'private', reason: 'IETF protocol address (local network services)' },
  { network: '2001:2::', prefix: 48, family: 'ipv6', kind: 'private', reason: 'benchmarking address' },
  // AMT and AS112 are public services inside the IETF block: judged as any public address.
  { network: '2001:3::', prefix: 32, family: 'ipv6', kind: 'public', reason: '' },
  { network: '2001:4:112::', prefix: 48, family: 'ipv6', kind: 'public', reason: '' },
  { network: '2001:10::', prefix: 28, family: 'ipv6', kind: 'forbidden', reason: 'deprecated identifier address (ORCHID)' },
  { network: '2001:20::', prefix: 28, family: 'ipv6', kind: 'forbidden', reason: 'identifier, not a locator (ORCHIDv2)' },
  { network: '2001:30::', prefix: 28, family: 'ipv6', kind: 'forbidden', reason: 'identifier, not a locator (drone entity tag)' },
  { network: '2001:db8::', prefix: 32, family: 'ipv6', kind: 'forbidden', reason: 'documentation address' },
  { network: '3fff::', prefix: 20, family: 'ipv6', kind: 'forbidden', reason: 'documentation address' },
  { network: '5f00::', prefix: 16, family: 'ipv6', kind: 'forbidden', reason: 'segment routing identifier' },
  { network: 'fc00::', prefix: 7, family: 'ipv6', kind: 'private', reason: PRIVATE_REASON.uniqueLocal },
  { network: 'fe80::', prefix: 10, family: 'ipv6', kind: 'private', reason: PRIVATE_REASON.linkLocal },
  // Site-local (RFC 3879 deprecated it; old networks still route it) is the unique-local of its day.
  { network: 'fec0::', prefix: 10, family: 'ipv6', kind: 'private', reason: PRIVATE_REASON.uniqueLocal },
  { network: 'ff00::', prefix: 8, family: 'ipv6', kind: 'forbidden', reason: 'multicast address' },
];

/** The table's blocks, most specific first, each with its own list: the first that holds an address decides. */
const BY_SPECIFICITY: ReadonlyArray<{ block: SpecialPurposeBlock; list: BlockList }> = [...SPECIAL_PURPOSE]
  .sort((a, b) => b.prefix - a.prefix)
  .map((block) => {
    const list = new BlockList();
    list.addSubnet(block.network, block.prefix, block.family);
    return { block, list };
  });

/**
 * The IPv4 addresses an IPv6 address carries, by which it is judged: ::ffff:10.0.0.1 is as private
 * as 10.0.0.1. Undefined for an address that carries none.
 *
 * - IPv4-mapped ::ffff:a.b.c.d (RFC 4291), SIIT's IPv4-translated ::ffff:0:a.b.c.d (RFC 2765) and
 *   the deprecated IPv4-compatible ::a.b.c.d: the last 32 bits.
 * - NAT64's well-known prefix 64:ff9b::/96 (RFC 6052): the last 32 bits, its one format.
 * - NAT64's local-use prefix 64:ff9b:1::/48 (RFC 8215): the local network's translator may use it
 *   with any prefix length from /48 to /96, each of which puts the IPv4 address in another place
 *   (RFC 6052 section 2.2), and which one it uses cannot be seen from here. So each place is read,
 *   and the strictest verdict wins: an address that reads as public at /96 but as 10.0.0.1 at /48
 *   is refused. A place that reads as 0.0.0.0/8 is what a shorter format's zero padding looks like,
 *   and is skipped; no translator sends traffic to "this network".
 * - 6to4 2002::/16 (RFC 3056): bits 16 to 47.
 */
function embeddedIpv4Candidates(address: string): string[] | undefined {
  const groups = expandIpv6(address);
  if (groups === undefined) return undefined;
  const bytes = groups.flatMap((group) => [group >> 8, group & 0xff]);
  const ipv4 = (at: readonly number[]) => at.map((index) => bytes[index] ?? 0).join('.');
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const last32 = ipv4([12, 13, 14, 15]);
  if (zeros(0, 5) && groups[5] === 0xffff) return [last32]; // IPv4-mapped
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return [last32]; // IPv4-translated (SIIT)
  if (zeros(0, 6) && !(groups[6] === 0 && (groups[7] ?? 0) <= 1)) return [last32]; // IPv4-compatible (deprecated); not :: or ::1
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return [last32]; // NAT64, well-known prefix
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups[2] === 1) {
    // NAT64, local-use prefix: the /48, /56, /64 and /96 formats (bits 64 to 71 are RFC 6052's "u" octet).
    const places = [ipv4([6, 7, 9, 10]), ipv4([7, 9, 10, 11]), ipv4([9, 10, 11, 12]), last32];
    const meaningful = places.filter((candidate) => !candidate.startsWith('0.'));
    return meaningful.length > 0 ? meaningful : [last32];
  }
  if (groups[0] === 0x2002) return [ipv4([2, 3, 4, 5])]; // 6to4
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

const STRICTNESS: Record<AddressClass['kind'], number> = { public: 0, private: 1, forbidden: 2 };

export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) return { kind: 'forbidden', reason: 'not an IP address' };
  const type: Family = family === 4 ? 'ipv4' : 'ipv6';
  if (METADATA_ADDRESSES.check(address, type)) return { kind: 'forbidden', reason: 'cloud metadata address' };
  if (type === 'ipv6') {
    const inner = embeddedIpv4Candidates(address);
    if (inner !== undefined) {
      return inner.map(classifyAddress).reduce((strictest, each) => (STRICTNESS[each.kind] > STRICTNESS[strictest.kind] ? each : strictest));
    }
  }
  const found = BY_SPECIFICITY.find(({ list }) => list.check(address, type))?.block;
  if (found === undefined || found.kind === 'public') return { kind: 'public' };
  return { kind: found.kind, reason: found.reason };
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
