import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, test } from 'node:test';
import { RATE_LIMITS } from '../src/rate-limit/rate-limit.js';
import { buildTestApp, signUp, STRONG_PASSWORD, type TestApp } from './helpers.js';

/**
 * Guesses sent at once, over real HTTP to a listening server (on PostgreSQL when TEST_DATABASE_URL
 * is set): every limit must hold however many attempts are in flight together, because attempts
 * are counted before the expensive check, not after it.
 */
let t: TestApp;
let base: string;
const ORIGIN = 'http://localhost:3000';

beforeEach(async () => {
  t = await buildTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await t.close();
});

interface Answer {
  status: number;
  retryAfter: string | null;
}

async function post(url: string, body: Record<string, string>, form = false): Promise<Answer> {
  const response = await fetch(`${base}${url}`, {
    method: 'POST',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json', origin: ORIGIN },
    body: form ? new URLSearchParams(body).toString() : JSON.stringify(body),
    redirect: 'manual',
  });
  await response.arrayBuffer();
  return { status: response.status, retryAfter: response.headers.get('retry-after') };
}

/** Fires every request before any answer comes back, and counts the answers by status. */
async function all(requests: Array<() => Promise<Answer>>): Promise<{ count: (status: number) => number; answers: Answer[] }> {
  const answers = await Promise.all(requests.map((request) => request()));
  return { answers, count: (status) => answers.filter((answer) => answer.status === status).length };
}

function assertLimited(answers: Answer[]): void {
  for (const answer of answers.filter((each) => each.status === 429)) assert.ok(Number(answer.retryAfter) > 0, 'a 429 carries Retry-After');
}

test('40 parallel wrong passwords for one account, through the API login and the web sign-in: 10 are checked, 30 get 429', async () => {
  const user = await signUp(t.app, 'parallel-victim@example.com');
  const { count, answers } = await all(
    Array.from({ length: 40 }, (_, i) => () => post(i % 2 === 0 ? '/auth/login' : '/auth/session', { email: user.email, password: `wrong-guess-${i}` })),
  );
  assert.equal(count(401), RATE_LIMITS.loginFailuresPerAccount.limit);
  assert.equal(count(429), 30);
  assertLimited(answers);
  // Locked: the right password is refused too, and the counter holds exactly the attempts let through.
  assert.equal((await post('/auth/login', { email: user.email, password: STRONG_PASSWORD })).status, 429);
  const row = await t.database.db.selectFrom('rate_limits').select('count').where('key', '=', 'login:account:parallel-victim@example.com').executeTakeFirstOrThrow();
  assert.equal(Number(row.count), 10);
});

test('parallel guesses for an unknown address are limited exactly like a known one', async () => {
  const { count } = await all(Array.from({ length: 25 }, (_, i) => () => post('/auth/login', { email: 'nobody-here@example.com', password: `wrong-guess-${i}` })));
  assert.equal(count(401), 10);
  assert.equal(count(429), 15);
});

test('200 parallel wrong passwords from one address over many accounts: at most 50 are checked', async () => {
  await signUp(t.app, 'spray-known@example.com');
  const { count, answers } = await all(
    Array.from({ length: 200 }, (_, i) => () => post('/auth/login', { email: i === 0 ? 'spray-known@example.com' : `spray-${i}@example.com`, password: 'Summer2026!' })),
  );
  assert.equal(count(401), RATE_LIMITS.loginFailuresPerIp.limit);
  assert.equal(count(429), 150);
  assertLimited(answers);
});

test('30 parallel sign-ups from one address: 10 accounts are made, 20 get 429', async () => {
  const { count, answers } = await all(Array.from({ length: 30 }, (_, i) => () => post('/auth/signup', { email: `burst-${i}@example.com`, password: STRONG_PASSWORD })));
  assert.equal(count(201), RATE_LIMITS.signupsPerIp.limit);
  assert.equal(count(429), 20);
  assertLimited(answers);
  const users = await t.database.db.selectFrom('users').select('id').execute();
  assert.equal(users.length, 10);
});

test('15 parallel sign-in link requests for one address, by the API and the expired-link form: 5 links, 10 refusals', async () => {
  await signUp(t.app, 'flooded@example.com');
  const { count, answers } = await all(
    Array.from({ length: 15 }, (_, i) => () => (i % 2 === 0 ? post('/auth/magic-link', { email: 'flooded@example.com' }) : post('/magic/resend', { email: 'flooded@example.com' }, true))),
  );
  assert.equal(count(202) + count(200), RATE_LIMITS.magicLinksPerAddress.limit);
  assert.equal(count(429), 10);
  assertLimited(answers);
  const tokens = await t.database.db.selectFrom('one_time_tokens').select('id').where('purpose', '=', 'magic_link').execute();
  assert.equal(tokens.length, 5);
});

test('60 parallel sign-in link requests from one address over many e-mails: at most 20 pass', async () => {
  const { count, answers } = await all(Array.from({ length: 60 }, (_, i) => () => post('/auth/magic-link', { email: `link-spray-${i}@example.com` })));
  assert.equal(count(202), RATE_LIMITS.magicLinksPerIp.limit);
  assert.equal(count(429), 40);
  assertLimited(answers);
});
