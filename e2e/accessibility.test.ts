import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { createSite, mailedMagicLink, signUp } from '../test/helpers.js';
import { verificationLinkIn, verificationMailTo } from '../test/smtp.js';
import { seriousViolations } from './axe.js';
import { signInPage } from './dashboard-session.js';
import { openDashboard } from './harness.js';

interface BrowserElement {
  textContent: string | null;
  style: { color: string; background: string };
  append(child: BrowserElement): void;
}
declare const document: { createElement(tag: string): BrowserElement; querySelector(selector: string): BrowserElement | null };
declare const window: { history: { pushState(state: null, title: string, url: string): void }; dispatchEvent(event: object): void };
declare class PopStateEvent {
  constructor(type: string);
}
declare function requestAnimationFrame(callback: () => void): number;

/** The rules checked: WCAG 2.0 and 2.1 at levels A and AA, and axe's best practices. */
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

interface Screen {
  name: string;
  /** Opens the screen and waits until it is drawn. */
  open: (page: Page) => Promise<void>;
}

/** Waits until the page has drawn what a change of colour scheme or size made it render. */
async function nextFrames(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

function at(origin: string, path: string, heading: string | RegExp): Screen['open'] {
  return async (page) => {
    await page.goto(`${origin}${path}`);
    await page.getByRole('heading', { name: heading, level: 1 }).first().waitFor();
  };
}

test('axe-core finds no serious or critical violation on any screen, light and dark, at 1280 and 390 px; screenshots of each', { timeout: 600_000 }, async () => {
  const dashboard = await openDashboard();
  const { t, smtp, page, origin } = dashboard;
  try {
    const user = await signUp(t.app);
    const verifyLink = new URL(verificationLinkIn(await verificationMailTo(smtp, user.email)));
    const magicLink = await mailedMagicLink(t.app, smtp, user.email);
    const site = await createSite(t.app, user.bearer, { name: 'Help centre', color: '#0ea5e9', ai_settings: '{"model":"small"}', partner_settings: { enabled: true } });
    await createSite(t.app, user.bearer, { name: 'Sales assistant', color: '#e11d48' });
    const workspaces = await t.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: { authorization: user.bearer } });
    const workspace = workspaces.json<{ workspaces: Array<{ id: string; personal: boolean }> }>().workspaces.find((each) => each.personal)?.id ?? '';
    // A change request, proposed by the site's owner, for its screen and the site's list.
    const proposed = await t.app.inject({ method: 'POST', url: `/api/v1/sites/${site.id}/change-requests`, headers: { authorization: user.bearer }, payload: { title: 'Concise answers', description: 'Shorter replies.', changes: { ai_settings: '{"model":"small","tone":"concise"}', color: '#0f766e' } } });
    assert.equal(proposed.statusCode, 201, proposed.body);
    const changeRequest = proposed.json<{ change_request: { id: string } }>().change_request.id;
    const retired = await createSite(t.app, user.bearer, { name: 'Retired assistant' });
    assert.equal((await t.app.inject({ method: 'DELETE', url: `/api/v1/sites/${retired.id}`, headers: { authorization: user.bearer } })).statusCode, 204);

    const signedOut: Screen[] = [
      { name: 'sign-in', open: at(origin, '/sign-in', 'Sign in to Siteward') },
      { name: 'sign-up', open: at(origin, '/sign-up', 'Create your account') },
      // Server-rendered, without script. Opening them redeems nothing.
      { name: 'magic-link-confirm', open: at(origin, `/magic${magicLink.search}`, 'Sign in to Siteward') },
      { name: 'magic-link-invalid', open: at(origin, '/magic?token=unknown', 'This sign-in link no longer works') },
      { name: 'verify-email', open: at(origin, `/verify-email${verifyLink.search}`, /e-mail|address/i) },
      { name: 'not-found-signed-out', open: at(origin, '/nope', 'Page not found') },
    ];
    const signedIn: Screen[] = [
      { name: 'sites-list', open: at(origin, '/', 'Sites') },
      { name: 'site-editor', open: at(origin, `/sites/${site.id}`, 'Help centre') },
      {
        // The JSON view: CodeMirror's syntax colours, in a shadow root axe reads too.
        name: 'site-editor-json',
        open: async (target) => {
          await at(origin, `/sites/${site.id}/ai`, 'Help centre')(target);
          await target.getByRole('tab', { name: 'JSON' }).first().click();
          await target.locator('.cm-content').first().waitFor();
        },
      },
      { name: 'site-editor-install', open: at(origin, `/sites/${site.id}/install`, 'Help centre') },
      { name: 'site-editor-change-requests', open: at(origin, `/sites/${site.id}/change-requests`, 'Help centre') },
      { name: 'change-request', open: at(origin, `/sites/${site.id}/change-requests/${changeRequest}`, 'Concise answers') },
      { name: 'settings-profile', open: at(origin, '/settings/profile', 'Profile') },
      { name: 'settings-access-tokens', open: at(origin, '/settings/access-tokens', 'Access tokens') },
      { name: 'settings-security', open: at(origin, '/settings/security', 'Security') },
      { name: 'trash', open: at(origin, '/trash', 'Trash') },
      { name: 'workspace-webhooks', open: at(origin, `/settings/workspaces/${workspace}/webhooks`, 'Webhooks') },
      {
        name: 'not-found',
        open: async (target) => {
          await at(origin, '/', 'Sites')(target);
          await target.evaluate(() => {
            window.history.pushState(null, '', '/no/such/screen');
            window.dispatchEvent(new PopStateEvent('popstate'));
          });
          await target.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
        },
      },
    ];

    // The check itself can fail: grey on grey is found.
    await signedOut[0]?.open(page);
    await page.evaluate(() => {
      const faint = document.createElement('p');
      faint.textContent = 'Barely legible';
      // Through the CSSOM: the CSP refuses style attributes.
      faint.style.color = '#aaaaaa';
      faint.style.background = '#bbbbbb';
      document.querySelector('main')?.append(faint);
    });
    assert.ok((await seriousViolations(page, { tags: WCAG_AA })).some((violation) => violation.id === 'color-contrast'), 'axe reports poor contrast');

    const found: string[] = [];
    // Each screen is opened once and checked in each colour scheme and width in place: the
    // dashboard follows both as they change (theme.ts listens to the system's scheme; the layout
    // is CSS), and loading it four times a screen was most of the test's time.
    async function check(screens: Screen[]) {
      for (const screen of screens) {
        let opened = false;
        for (const colorScheme of ['light', 'dark'] as const) {
          for (const width of [1280, 390]) {
            await page.emulateMedia({ colorScheme });
            await page.setViewportSize({ width, height: 900 });
            if (opened) await nextFrames(page);
            else await screen.open(page);
            opened = true;
            for (const violation of await seriousViolations(page, { tags: WCAG_AA })) {
              found.push(`${screen.name} (${colorScheme}, ${width} px): ${violation.impact} ${violation.id}: ${violation.help} at ${violation.targets.join(', ')}`);
            }
            if (width === 1280) await dashboard.screenshot(`${screen.name}-${colorScheme}`);
          }
        }
      }
    }

    await check(signedOut);
    await signInPage(page, origin, user.email);
    await check(signedIn);
    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
  } finally {
    await dashboard.close();
  }
});
