import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConsoleMessage, Request } from 'playwright-core';
import { signUp } from '../test/helpers.js';
import { seriousAccessibilityProblems } from './axe.js';
import { signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

// The screens for people signed out ask the API nothing about a session they cannot have: no
// account, no sites list (each would answer 401, which the browser logs as an error), and the
// console stays clean, also with the cookie of a session that has ended. Someone signed in who
// opens one is still led onwards.

const SIGNED_OUT_PAGES = [
  { path: '/sign-in', heading: 'Sign in to Siteward' },
  { path: `/sign-in?next=${encodeURIComponent('/settings/security')}`, heading: 'Sign in to Siteward' },
  { path: '/sign-up', heading: 'Create your account' },
];

test('the signed-out pages ask for no account and no sites, log no console error and pass axe', { timeout: 180_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, origin } = dashboard;
  try {
    // One browser without a session cookie; each address is a page load of its own.
    const { page } = dashboard;
    let asked: string[] = [];
    let errors: string[] = [];
    page.on('request', (request: Request) => {
      const { pathname } = new URL(request.url());
      if (pathname.startsWith('/api/v1/me') || pathname.startsWith('/api/v1/sites')) asked.push(pathname);
    });
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error: Error) => errors.push(error.message));
    const opensSignedOut = async (path: string, heading: string, label: string) => {
      asked = [];
      errors = [];
      await page.goto(`${origin}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      assert.deepEqual(asked, [], `${label}: ${path} asked for ${asked.join(', ')}`);
      assert.deepEqual(errors, [], `${label}: ${path} logged errors`);
    };
    for (const { path, heading } of SIGNED_OUT_PAGES) {
      await opensSignedOut(path, heading, 'no cookie');
      assert.deepEqual(await seriousAccessibilityProblems(page), [], path);
    }

    // Signed in, the sign-in page still asks who it is and leads on to the dashboard.
    const user = await signUp(t.app);
    await signInPage(page, origin, user.email);
    await page.goto(`${origin}/sign-in?next=${encodeURIComponent('/trash')}`);
    await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/trash');

    // The session has ended (idle too long): its cookie is still in the browser, yet the sign-in
    // screens show as to anyone signed out, without a 401, and the server drops the cookie.
    const sessionCookies = async () => (await page.context().cookies(origin)).filter((cookie) => cookie.name === 'siteward_session');
    assert.equal((await sessionCookies()).length, 1);
    t.clock.advance(t.config.sessionIdleMs);
    for (const { path, heading } of SIGNED_OUT_PAGES) {
      await opensSignedOut(path, heading, 'ended session');
      assert.deepEqual(await sessionCookies(), [], path);
    }
    // A cookie that names no session at all, as a browser may keep from another server's database.
    await page.context().addCookies([{ name: 'siteward_session', value: 'no-such-session', url: origin }]);
    await opensSignedOut('/sign-in', 'Sign in to Siteward', 'unknown session');
    assert.deepEqual(await sessionCookies(), []);
  } finally {
    await dashboard.close();
  }
});
