import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, signUpConfirmed, type TestApp } from '../../test/helpers.js';
import { type HttpClient, listenOnLoopback } from '../../test/http.js';
import { startSmtpServer, type TestSmtpServer } from '../../test/smtp.js';
import { WEBHOOK_ERRORS } from '../webhooks/errors.js';
import { classifyAddress } from './network-guard.js';

// Runs once, on SQLite: the outbound guard refuses these addresses before anything is stored.

/**
 * Every entry of IANA's IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and the RFCs
 * that added to them, as the registries stood in 2025), written out here from the registries, not
 * read from the guard, with the verdict the outbound guard must give addresses in it: `public`,
 * `private` (allowed only with OUTBOUND_ALLOW_PRIVATE_NETWORKS) or `forbidden`. Each entry lists
 * addresses inside it that no more specific entry covers. The blocks that carry an IPv4 address
 * are judged by it, so each is tried with a public, a private and a metadata address inside.
 */

type Kind = 'public' | 'private' | 'forbidden';

interface RegistryEntry {
  block: string;
  name: string;
  rfc: string;
  /** Addresses in the block and the verdict each must get. */
  cases: Array<[address: string, kind: Kind]>;
}

const IPV4_REGISTRY: RegistryEntry[] = [
  { block: '0.0.0.0/8', name: '"This network"', rfc: 'RFC 791, section 3.2', cases: [['0.1.2.3', 'forbidden'], ['0.255.255.255', 'forbidden']] },
  { block: '0.0.0.0/32', name: '"This host on this network"', rfc: 'RFC 1122, section 3.2.1.3', cases: [['0.0.0.0', 'forbidden']] },
  { block: '10.0.0.0/8', name: 'Private-Use', rfc: 'RFC 1918', cases: [['10.0.0.0', 'private'], ['10.255.255.255', 'private']] },
  { block: '100.64.0.0/10', name: 'Shared Address Space', rfc: 'RFC 6598', cases: [['100.64.0.1', 'private'], ['100.127.255.254', 'private']] },
  { block: '127.0.0.0/8', name: 'Loopback', rfc: 'RFC 1122, section 3.2.1.3', cases: [['127.0.0.1', 'private'], ['127.255.255.254', 'private']] },
  { block: '169.254.0.0/16', name: 'Link Local', rfc: 'RFC 3927', cases: [['169.254.0.1', 'private'], ['169.254.255.254', 'private']] },
  { block: '172.16.0.0/12', name: 'Private-Use', rfc: 'RFC 1918', cases: [['172.16.0.1', 'private'], ['172.31.255.254', 'private']] },
  { block: '192.0.0.0/24', name: 'IETF Protocol Assignments', rfc: 'RFC 6890, section 2.1', cases: [['192.0.0.100', 'private'], ['192.0.0.255', 'private']] },
  { block: '192.0.0.0/29', name: 'IPv4 Service Continuity Prefix', rfc: 'RFC 7335', cases: [['192.0.0.1', 'private'], ['192.0.0.7', 'private']] },
  { block: '192.0.0.8/32', name: 'IPv4 dummy address', rfc: 'RFC 7600', cases: [['192.0.0.8', 'forbidden']] },
  { block: '192.0.0.9/32', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', cases: [['192.0.0.9', 'private']] },
  { block: '192.0.0.10/32', name: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155', cases: [['192.0.0.10', 'private']] },
  { block: '192.0.0.170/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880, RFC 7050, section 2.2', cases: [['192.0.0.170', 'private']] },
  { block: '192.0.0.171/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880, RFC 7050, section 2.2', cases: [['192.0.0.171', 'private']] },
  { block: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', rfc: 'RFC 5737', cases: [['192.0.2.1', 'forbidden'], ['192.0.2.255', 'forbidden']] },
  { block: '192.31.196.0/24', name: 'AS112-v4', rfc: 'RFC 7535', cases: [['192.31.196.1', 'public']] },
  { block: '192.52.193.0/24', name: 'AMT', rfc: 'RFC 7450', cases: [['192.52.193.1', 'public']] },
  { block: '192.88.99.0/24', name: 'Deprecated (6to4 Relay Anycast)', rfc: 'RFC 7526', cases: [['192.88.99.1', 'forbidden'], ['192.88.99.255', 'forbidden']] },
  { block: '192.88.99.2/32', name: '6a44-relay anycast address', rfc: 'RFC 6751', cases: [['192.88.99.2', 'forbidden']] },
  { block: '192.168.0.0/16', name: 'Private-Use', rfc: 'RFC 1918', cases: [['192.168.0.1', 'private'], ['192.168.255.254', 'private']] },
  { block: '192.175.48.0/24', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534', cases: [['192.175.48.1', 'public']] },
  { block: '198.18.0.0/15', name: 'Benchmarking', rfc: 'RFC 2544', cases: [['198.18.0.1', 'private'], ['198.19.255.254', 'private']] },
  { block: '198.51.100.0/24', name: 'Documentation (TEST-NET-2)', rfc: 'RFC 5737', cases: [['198.51.100.1', 'forbidden']] },
  { block: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', rfc: 'RFC 5737', cases: [['203.0.113.1', 'forbidden']] },
  { block: '240.0.0.0/4', name: 'Reserved', rfc: 'RFC 1112, section 4', cases: [['240.0.0.1', 'forbidden'], ['255.255.255.254', 'forbidden']] },
  { block: '255.255.255.255/32', name: 'Limited Broadcast', rfc: 'RFC 8190, RFC 919, section 7', cases: [['255.255.255.255', 'forbidden']] },
];

/** Addresses the guard refuses although the special-purpose registries do not list them. */
const BEYOND_THE_REGISTRIES: RegistryEntry[] = [
  { block: '224.0.0.0/4', name: 'Multicast', rfc: 'RFC 5771', cases: [['224.0.0.1', 'forbidden'], ['239.255.255.255', 'forbidden']] },
  { block: 'ff00::/8', name: 'Multicast', rfc: 'RFC 4291, section 2.7', cases: [['ff02::1', 'forbidden'], ['ff0e::101', 'forbidden']] },
  { block: 'fec0::/10', name: 'Site-local (deprecated)', rfc: 'RFC 3879', cases: [['fec0::1', 'private']] },
  { block: '::/96', name: 'IPv4-compatible (deprecated)', rfc: 'RFC 4291, section 2.5.5.1', cases: [['::8.8.8.8', 'public'], ['::127.0.0.1', 'private'], ['::169.254.169.254', 'forbidden']] },
  { block: '::ffff:0:0:0/96', name: 'IPv4-translated (SIIT)', rfc: 'RFC 2765, section 2.1', cases: [['::ffff:0:8.8.8.8', 'public'], ['::ffff:0:10.0.0.1', 'private'], ['::ffff:0:7f00:1', 'private'], ['::ffff:0:169.254.169.254', 'forbidden']] },
  {
    block: 'cloud metadata',
    name: 'Instance metadata services',
    rfc: '(providers\' documentation)',
    cases: [['169.254.169.254', 'forbidden'], ['169.254.170.2', 'forbidden'], ['100.100.100.200', 'forbidden'], ['168.63.129.16', 'forbidden'], ['fd00:ec2::254', 'forbidden']],
  },
];

const IPV6_REGISTRY: RegistryEntry[] = [
  { block: '::1/128', name: 'Loopback Address', rfc: 'RFC 4291', cases: [['::1', 'private']] },
  { block: '::/128', name: 'Unspecified Address', rfc: 'RFC 4291', cases: [['::', 'forbidden']] },
  {
    block: '::ffff:0:0/96',
    name: 'IPv4-mapped Address',
    rfc: 'RFC 4291',
    cases: [['::ffff:8.8.8.8', 'public'], ['::ffff:192.168.1.1', 'private'], ['::ffff:7f00:1', 'private'], ['::ffff:169.254.169.254', 'forbidden'], ['::ffff:192.0.2.1', 'forbidden']],
  },
  { block: '64:ff9b::/96', name: 'IPv4-IPv6 Translat.', rfc: 'RFC 6052', cases: [['64:ff9b::808:808', 'public'], ['64:ff9b::a00:1', 'private'], ['64:ff9b::a9fe:a9fe', 'forbidden']] },
  {
    block: '64:ff9b:1::/48',
    name: 'IPv4-IPv6 Translat. (local-use)',
    rfc: 'RFC 8215',
    cases: [
      ['64:ff9b:1::808:808', 'public'], // /96 format, 8.8.8.8
      ['64:ff9b:1:abcd::808:808', 'public'], // /96 format under an operator's /64 of the prefix
      ['64:ff9b:1::7f00:1', 'private'], // /96 format, 127.0.0.1
      ['64:ff9b:1::a9fe:a9fe', 'forbidden'], // /96 format, 169.254.169.254
      ['64:ff9b:1:a00:0:100::', 'private'], // /48 format, 10.0.0.1
      ['64:ff9b:1:a00:0:100:808:808', 'private'], // 10.0.0.1 at /48, 8.8.8.8 at /96: the strictest reading wins
      ['64:ff9b:1:0:a:0:100::', 'private'], // /64 format, 10.0.0.1
    ],
  },
  { block: '100::/64', name: 'Discard-Only Address Block', rfc: 'RFC 6666', cases: [['100::1', 'forbidden'], ['100::ffff:ffff:ffff:ffff', 'forbidden']] },
  { block: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix', rfc: 'RFC 9780', cases: [['100:0:0:1::1', 'forbidden']] },
  { block: '2001::/23', name: 'IETF Protocol Assignments', rfc: 'RFC 2928', cases: [['2001:100::1', 'forbidden'], ['2001:1ff:ffff::1', 'forbidden']] },
  { block: '2001::/32', name: 'TEREDO', rfc: 'RFC 4380, RFC 8190', cases: [['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'forbidden']] },
  { block: '2001:1::1/128', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', cases: [['2001:1::1', 'private']] },
  { block: '2001:1::2/128', name: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155', cases: [['2001:1::2', 'private']] },
  { block: '2001:1::3/128', name: 'DNS-SD Service Registration Protocol Anycast', rfc: 'RFC 9665', cases: [['2001:1::3', 'private']] },
  { block: '2001:2::/48', name: 'Benchmarking', rfc: 'RFC 5180, RFC Errata 1752', cases: [['2001:2::1', 'private']] },
  { block: '2001:3::/32', name: 'AMT', rfc: 'RFC 7450', cases: [['2001:3::1', 'public']] },
  { block: '2001:4:112::/48', name: 'AS112-v6', rfc: 'RFC 7535', cases: [['2001:4:112::1', 'public']] },
  { block: '2001:10::/28', name: 'Deprecated (previously ORCHID)', rfc: 'RFC 4843', cases: [['2001:10::1', 'forbidden']] },
  { block: '2001:20::/28', name: 'ORCHIDv2', rfc: 'RFC 7343', cases: [['2001:20::1', 'forbidden']] },
  { block: '2001:30::/28', name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', rfc: 'RFC 9374', cases: [['2001:30::1', 'forbidden']] },
  { block: '2001:db8::/32', name: 'Documentation', rfc: 'RFC 3849', cases: [['2001:db8::1', 'forbidden']] },
  { block: '2002::/16', name: '6to4', rfc: 'RFC 3056', cases: [['2002:808:808::1', 'public'], ['2002:c0a8:101::1', 'private'], ['2002:a9fe:a9fe::1', 'forbidden']] },
  { block: '2620:4f:8000::/48', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534', cases: [['2620:4f:8000::1', 'public']] },
  { block: '3fff::/20', name: 'Documentation', rfc: 'RFC 9637', cases: [['3fff::1', 'forbidden'], ['3fff:fff:ffff::1', 'forbidden']] },
  { block: '5f00::/16', name: 'Segment Routing (SRv6) SIDs', rfc: 'RFC 9602', cases: [['5f00::1', 'forbidden']] },
  { block: 'fc00::/7', name: 'Unique-Local', rfc: 'RFC 4193, RFC 8190', cases: [['fc00::1', 'private'], ['fdff:ffff::1', 'private']] },
  { block: 'fe80::/10', name: 'Link-Local Unicast', rfc: 'RFC 4291', cases: [['fe80::1', 'private'], ['febf::1', 'private']] },
];

/** Addresses just outside special-purpose blocks, which must stay public. */
const JUST_OUTSIDE: string[] = ['1.1.1.1', '9.255.255.255', '11.0.0.0', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0', '192.0.1.1', '192.167.255.255', '192.169.0.0', '198.17.255.255', '198.20.0.0', '223.255.255.255', '2606:4700:4700::1111', '2001:200::1', '2001:db7::1', '2003::1', '64:ff9a::808:808', 'fbff::1', 'fe7f::1'];

describe('the outbound guard against the special-purpose registries', () => {
  for (const entry of [...IPV4_REGISTRY, ...IPV6_REGISTRY, ...BEYOND_THE_REGISTRIES]) {
    test(`${entry.block} ${entry.name} (${entry.rfc})`, () => {
      for (const [address, kind] of entry.cases) assert.equal(classifyAddress(address).kind, kind, `${address} in ${entry.block}`);
    });
  }

  test('addresses just outside the blocks are public', () => {
    for (const address of JUST_OUTSIDE) assert.equal(classifyAddress(address).kind, 'public', address);
  });
});

describe('the spellings that carry an IPv4 address, over real HTTP', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let http: HttpClient;
  before(async () => {
    smtp = await startSmtpServer();
    t = await buildTestApp({ env: { SMTP_URL: smtp.url, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' } });
    http = await listenOnLoopback(t);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  test('a webhook URL on a NAT64 local-use or SIIT spelling of a private or metadata address is refused, as the plain address is', async () => {
    const owner = await signUpConfirmed(t.app, smtp);
    const workspaces = await http.request('GET', '/api/v1/workspaces', { headers: { authorization: owner.bearer } });
    const workspaceId = workspaces.json<{ workspaces: Array<{ id: string }> }>().workspaces[0]?.id ?? assert.fail(workspaces.text);
    for (const url of ['http://[64:ff9b:1::7f00:1]:9/hooks', 'http://[64:ff9b:1::a9fe:a9fe]/latest/meta-data', 'http://[::ffff:0:a00:1]/', 'http://[::ffff:0:7f00:1]:9/', 'http://[64:ff9b:1:a00:0:100:808:808]/']) {
      const answer = await http.request('POST', `/api/v1/workspaces/${workspaceId}/webhooks`, { headers: { authorization: owner.bearer }, json: { url, events: ['site.created'] } });
      assert.equal(answer.status, 400, `${url}: ${answer.text}`);
      assert.equal(answer.json<{ code: string }>().code, WEBHOOK_ERRORS.WEBHOOK_URL_REFUSED, url);
    }
    assert.equal(await t.database.db.selectFrom('webhooks').select('id').executeTakeFirst(), undefined);
  });
});
