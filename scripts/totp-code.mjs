// Prints the current TOTP code (RFC 6238: HMAC-SHA-1, 6 digits, 30 s) for a base32 secret, as an
// authenticator app would show it. For local use and the README's walkthrough; people use an app.
//   node scripts/totp-code.mjs JBSWY3DPEHPK3PXP
import { createHmac } from 'node:crypto';

const secret = (process.argv[2] ?? '').replace(/[\s=]/g, '').toUpperCase();
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
if (secret === '' || [...secret].some((character) => !alphabet.includes(character))) {
  console.error('usage: node scripts/totp-code.mjs <base32 secret>');
  process.exit(2);
}
let bits = '';
for (const character of secret) bits += alphabet.indexOf(character).toString(2).padStart(5, '0');
const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => parseInt(byte, 2)));
const counter = Buffer.alloc(8);
counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 1000 / 30)));
const mac = createHmac('sha1', key).update(counter).digest();
const offset = mac[mac.length - 1] & 0x0f;
console.log(String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0'));
