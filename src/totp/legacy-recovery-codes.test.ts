import assert from 'node:assert/strict';
import { createHmac, hkdfSync } from 'node:crypto';
import { afterEach, test } from 'node:test';
import { buildTestApp, createPostgresDatabase, enableTotp, signUp, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { sha256 } from '../lib/crypto.js';

// Recovery codes stored by versions that wrote a plain SHA-256 keep working: the digests are
// keyed when a server starts, with the key a migration never sees.

const apps: TestApp[] = [];
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The stored form of a code, computed here from the documented construction. */
function keyedDigest(t: TestApp, code: string): string {
  const key = Buffer.from(hkdfSync('sha256', t.config.encryptionKey, Buffer.alloc(0), 'siteward recovery-code digest v1', 32));
  return `hmac:${createHmac('sha256', key).update(sha256(code.replace('-', ''))).digest('hex')}`;
}

/** Two apps on one database in turn: the second start is the upgrade of the first's data. */
async function sharedDatabase(): Promise<{ dataDir?: string; databaseUrl?: string }> {
  const adminUrl = process.env.TEST_DATABASE_URL ?? '';
  if (adminUrl === '') return {};
  const created = await createPostgresDatabase(adminUrl);
  cleanups.push(created.drop);
  return { databaseUrl: created.url };
}

test('a recovery code stored as a plain SHA-256 is keyed at start-up, then redeems once', async () => {
  const shared = await sharedDatabase();
  const first = await buildTestApp(shared);
  const user = await signUp(first.app);
  const { recoveryCodes } = await enableTotp(first, user);
  const [legacyCode = '', keptCode = ''] = recoveryCodes;
  // What an older version wrote: the unsalted SHA-256 of the normalised code.
  const legacyDigest = sha256(legacyCode.replace('-', ''));
  const written = await first.database.db.updateTable('recovery_codes').set({ code_hash: legacyDigest }).where('code_hash', '=', keyedDigest(first, legacyCode)).executeTakeFirst();
  assert.equal(Number(written.numUpdatedRows), 1);
  // The keyed digest of that code is now gone; the legacy row is the only way in.
  await first.app.close();
  await first.database.close();

  const second = await buildTestApp({ ...shared, dataDir: first.dataDir, clock: first.clock });
  apps.push(second);
  cleanups.push(async () => {
    const { rmSync } = await import('node:fs');
    rmSync(first.dataDir, { recursive: true, force: true });
  });

  const stored = await second.database.db.selectFrom('recovery_codes').select(['id', 'code_hash']).where('user_id', '=', user.id).execute();
  assert.equal(stored.length, 10);
  assert.ok(stored.every((row) => row.code_hash.startsWith('hmac:')), 'every digest is keyed after the start');
  assert.ok(!stored.some((row) => row.code_hash.includes(legacyDigest)));

  const login = (otp: string) => second.app.inject({ method: 'POST', url: '/auth/login', payload: { email: user.email, password: STRONG_PASSWORD, otp } });
  assert.equal((await login(legacyCode)).statusCode, 200);
  assert.equal((await login(legacyCode)).json<{ code: string }>().code, 'otp_invalid');
  assert.equal((await login(keptCode)).statusCode, 200);
});

test('a legacy digest written by an older server after the start still redeems, once', async () => {
  const t = await buildTestApp();
  apps.push(t);
  const user = await signUp(t.app);
  const { recoveryCodes } = await enableTotp(t, user);
  const code = recoveryCodes[3] ?? '';
  const written = await t.database.db.updateTable('recovery_codes').set({ code_hash: sha256(code.replace('-', '')) }).where('code_hash', '=', keyedDigest(t, code)).executeTakeFirst();
  assert.equal(Number(written.numUpdatedRows), 1);

  const login = (otp: string) => t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: user.email, password: STRONG_PASSWORD, otp } });
  assert.equal((await login(code)).statusCode, 200);
  assert.equal((await login(code)).statusCode, 401);
});
