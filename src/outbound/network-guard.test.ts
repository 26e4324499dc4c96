import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyAddress, defaultAddressPolicy, resolveAllowedAddresses, type Resolver } from './network-guard.js';

test('addresses are classified as public, private (allowed only when configured) or forbidden', () => {
  const cases: Array<[string, string]> = [
    ['93.184.215.14', 'public'],
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'private'],
    ['127.255.255.254', 'private'],
    ['::1', 'private'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.1.1', 'private'],
    ['fe80::1', 'private'],
    ['fd00::1', 'private'],
    ['fc12:3456::1', 'private'],
    ['::ffff:127.0.0.1', 'private'],
    ['::ffff:7f00:1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:c0a8:101::1', 'private'],
    ['169.254.169.254', 'forbidden'],
    ['::ffff:169.254.169.254', 'forbidden'],
    ['fd00:ec2::254', 'forbidden'],
    ['100.100.100.200', 'forbidden'],
    ['0.0.0.0', 'forbidden'],
    ['::', 'forbidden'],
    ['224.0.0.1', 'forbidden'],
    ['255.255.255.255', 'forbidden'],
    ['ff02::1', 'forbidden'],
    ['192.0.2.10', 'forbidden'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
  ];
  for (const [address, kind] of cases) assert.equal(classifyAddress(address).kind, kind, address);
});

test('the default policy refuses private addresses unless allowed, and metadata addresses always', () => {
  const strict = defaultAddressPolicy(false);
  const open = defaultAddressPolicy(true);
  assert.deepEqual(strict('8.8.8.8'), { allowed: true });
  assert.deepEqual(strict('10.0.0.1'), { allowed: false, reason: 'private address (not allowed on this server; its administrator can allow private networks)' });
  assert.deepEqual(open('10.0.0.1'), { allowed: true });
  assert.deepEqual(open('::1'), { allowed: true });
  assert.deepEqual(open('169.254.169.254'), { allowed: false, reason: 'cloud metadata address' });
  assert.equal(open('0.0.0.0').allowed, false);
});

test('a name is refused when any of its addresses is, so a public address cannot smuggle in a private one', async () => {
  const resolver: Resolver = async () => [
    { address: '93.184.215.14', family: 4 },
    { address: '10.0.0.5', family: 4 },
  ];
  await assert.rejects(resolveAllowedAddresses('partner.example', defaultAddressPolicy(false), resolver), {
    message: 'refused to connect to partner.example (10.0.0.5): private address (not allowed on this server; its administrator can allow private networks)',
  });
});

test('IP literals are checked without DNS, IPv6 brackets included; DNS failures are named', async () => {
  let lookups = 0;
  const resolver: Resolver = async () => {
    lookups++;
    throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
  };
  await assert.rejects(resolveAllowedAddresses('[::1]', defaultAddressPolicy(false), resolver), { message: /refused to connect to ::1: loopback address/ });
  assert.deepEqual(await resolveAllowedAddresses('8.8.8.8', defaultAddressPolicy(false), resolver), [{ address: '8.8.8.8', family: 4 }]);
  assert.equal(lookups, 0);
  await assert.rejects(resolveAllowedAddresses('nowhere.invalid', defaultAddressPolicy(false), resolver), { message: 'DNS lookup for nowhere.invalid failed (ENOTFOUND)' });
});
