import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { buildTestAppWithMail, createPostgresDatabase, signUp, STRONG_PASSWORD, type TestApp } from '../../test/helpers.js';
import { type TestSmtpServer, verificationLinkIn, verificationMailTo } from '../../test/smtp.js';
import { AppError } from '../errors.js';
import { sha256 } from '../lib/crypto.js';
import type { UserRow } from '../users/queries.js';
import { EMAIL_VERIFICATION_ERRORS } from './errors.js';
import { assertEmailVerified } from './service.js';

const ORIGIN = 'http://localhost:3000';
const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN };
const CLI = fileURLToPath(new URL('../cli.js', import.meta.url));

let t: TestApp;
let smtp: TestSmtpServer;
beforeEach(async () => ({ t, smtp } = await buildTestAppWithMail()));
afterEach(() => t.close());

async function mailedToken(email: string): Promise<{ token: string; path: string }> {
  const link = new URL(verificationLinkIn(await verificationMailTo(smtp, email)));
  return { token: link.searchParams.get('token') ?? '', path: `${link.pathname}${link.search}` };
}

function verifyForm(token: string, headers: Record<string, string> = FORM) {
  return t.app.inject({ method: 'POST', url: '/verify-email', headers, payload: `token=${encodeURIComponent(token)}` });
}

async function verified(authorization: string): Promise<boolean> {
  return (await t.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization } })).json().user.email_verified;
}

function resend(authorization: string) {
  return t.app.inject({ method: 'POST', url: '/auth/verify-email/resend', headers: { authorization } });
}

describe('e-mail verification', () => {
  test('sign-up mails a 24-hour link; GET and HEAD never verify; the page\'s POST does, once', async () => {
    const user = await signUp(t.app, 'new@example.com');
    assert.equal(await verified(user.bearer), false);
    const mail = await verificationMailTo(smtp, user.email);
    assert.match(mail.text, /expires in 24 hours/);
    assert.match(mail.text, /did not create this account, do not confirm/);
    const { token, path: linkPath } = await mailedToken(user.email);
    assert.ok(linkPath.startsWith('/verify-email?token='));
    const row = await t.database.db.selectFrom('one_time_tokens').selectAll().where('purpose', '=', 'email_verification').executeTakeFirstOrThrow();
    assert.equal(row.token_hash, sha256(token), 'only the hash is stored');
    assert.equal(row.expires_at, new Date(t.clock.now().getTime() + 24 * 3_600_000).toISOString());

    assert.equal((await t.app.inject({ method: 'HEAD', url: linkPath })).statusCode, 200);
    for (let i = 0; i < 3; i++) {
      const page = await t.app.inject({ method: 'GET', url: linkPath, headers: { 'user-agent': 'SafeLinks scanner' } });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<form method="post" action="\/verify-email">/);
      assert.match(page.body, /new@example\.com/);
      assert.equal(page.headers['cache-control'], 'no-store');
    }
    assert.equal(await verified(user.bearer), false, 'opening the link verified nothing');

    const done = await verifyForm(token);
    assert.equal(done.statusCode, 200);
    assert.match(done.body, /Address confirmed/);
    assert.equal(await verified(user.bearer), true);
    assert.ok(t.logs().includes('"security_event":"email.verified"'));
    assert.ok(!t.logs().includes(token), 'the token never reaches the logs');
  });

  test('a reused, expired or unknown link gets a clear 410 page (form) or problem (JSON)', async () => {
    const first = await signUp(t.app, 'reuse@example.com');
    const { token } = await mailedToken(first.email);
    assert.equal((await t.app.inject({ method: 'POST', url: '/verify-email', headers: { origin: ORIGIN }, payload: { token } })).json().user.email_verified, true);
    const reused = await verifyForm(token);
    assert.equal(reused.statusCode, 410);
    assert.match(reused.body, /This confirmation link no longer works/);

    const late = await signUp(t.app, 'late@example.com');
    const expiring = await mailedToken(late.email);
    t.clock.advance(24 * 3_600_000 + 1000);
    assert.equal((await t.app.inject({ method: 'GET', url: expiring.path })).statusCode, 410);
    const expired = await t.app.inject({ method: 'POST', url: '/verify-email', headers: { origin: ORIGIN }, payload: { token: expiring.token } });
    assert.equal(expired.statusCode, 410);
    assert.equal(expired.json().code, 'verification_token_invalid');
    assert.equal(await verified(late.bearer), false);

    for (const unknown of ['', 'abc', 'A'.repeat(43)]) {
      assert.equal((await verifyForm(unknown)).statusCode, 410, unknown);
      assert.equal((await t.app.inject({ method: 'GET', url: `/verify-email?token=${unknown}` })).statusCode, 410);
    }
  });

  test('a cross-site POST is refused and leaves the link usable', async () => {
    const user = await signUp(t.app, 'csrf-verify@example.com');
    const { token } = await mailedToken(user.email);
    const forged = await verifyForm(token, { ...FORM, origin: 'https://evil.example' });
    assert.equal(forged.statusCode, 403);
    assert.equal(await verified(user.bearer), false);
    assert.equal((await verifyForm(token)).statusCode, 200);
  });

  test('resend is limited to 3 an hour, counted before sending, even for parallel requests', async () => {
    const user = await signUp(t.app, 'resend@example.com');
    await verificationMailTo(smtp, user.email);
    const before = smtp.messages.length;
    const answers = await Promise.all(Array.from({ length: 10 }, () => resend(user.bearer)));
    assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [202, 202, 202, 429, 429, 429, 429, 429, 429, 429]);
    assert.ok(answers.filter((answer) => answer.statusCode === 429).every((answer) => Number(answer.headers['retry-after']) > 0));
    await t.mailer.idle();
    assert.equal(smtp.messages.length, before + 3);

    t.clock.advance(60 * 60_000);
    const { token } = await mailedToken(user.email);
    assert.equal((await verifyForm(token)).statusCode, 200);
    const already = await resend(user.bearer);
    assert.equal(already.statusCode, 409);
    assert.equal(already.json().code, 'email_already_verified');
    assert.equal((await t.app.inject({ method: 'POST', url: '/auth/verify-email/resend' })).statusCode, 401);
  });

  test('the reusable check refuses an unverified account with 403 email_not_verified', () => {
    const user: UserRow = { id: 'u1', email: 'a@example.com', name: '', password_hash: 'x', jwt_generation: 0, email_verified_at: null, instance_admin: 0, disabled_at: null, created_at: '', updated_at: '' };
    assert.throws(() => assertEmailVerified(user), (error: unknown) => error instanceof AppError && error.status === 403 && error.code === EMAIL_VERIFICATION_ERRORS.EMAIL_NOT_VERIFIED);
    assert.equal(EMAIL_VERIFICATION_ERRORS.EMAIL_NOT_VERIFIED, 'email_not_verified');
    assert.doesNotThrow(() => assertEmailVerified({ ...user, email_verified_at: '2026-01-15T10:00:00.000Z' }));
  });
});

test('a user created with the CLI is verified', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-cli-'));
  const adminUrl = process.env.TEST_DATABASE_URL ?? '';
  const database = adminUrl === '' ? undefined : await createPostgresDatabase(adminUrl);
  try {
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, ...(database === undefined ? {} : { DATABASE_URL: database.url }) };
    const created = spawnSync(process.execPath, [CLI, 'users:create', '--email', 'operator@example.com', '--password', STRONG_PASSWORD, '--json'], { env, encoding: 'utf8', timeout: 30_000 });
    assert.equal(created.status, 0, created.stderr);
    assert.equal(JSON.parse(created.stdout).user.email_verified, true);
  } finally {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
