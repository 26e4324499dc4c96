import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { STRONG_PASSWORD } from '../test/helpers.js';

// The few browser globals the page-side callbacks below touch (the project compiles without the DOM library).
declare const window: { innerWidth: number };
declare const document: { body: object; documentElement: { scrollWidth: number } };
declare function getComputedStyle(element: object): { backgroundColor: string };

/**
 * Signs the page in with the web session cookie. The sign-in screen is tested on its own; here the
 * page posts the credentials itself, as the screen would, from the app's origin (CSRF rule).
 */
export async function signInPage(page: Page, origin: string, email: string): Promise<void> {
  await page.goto(`${origin}/sign-in`);
  const status = await page.evaluate(
    async ({ email, password }) => {
      const response = await fetch('/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
      return response.status;
    },
    { email, password: STRONG_PASSWORD },
  );
  assert.ok(status >= 200 && status < 300, `web sign-in answered ${status}`);
}

/** Whether the page is wider than the window: a screen that scrolls sideways. */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}

/** The page's background colour as the browser computed it, e.g. "rgb(15, 17, 21)". */
export async function backgroundOf(page: Page): Promise<string> {
  return page.evaluate(pageBackground);
}

function pageBackground(): string {
  const body = getComputedStyle(document.body).backgroundColor;
  return body === 'rgba(0, 0, 0, 0)' ? getComputedStyle(document.documentElement).backgroundColor : body;
}

/**
 * Asserts the page's background becomes `expected` within a few seconds: the dashboard follows a
 * change of the system's theme through a media-query listener, on the page's next turn.
 */
export async function assertBackground(page: Page, expected: string, message?: string): Promise<void> {
  const reached = await page
    .waitForFunction(
      (want) => {
        // pageBackground's reading, inlined: a function passed to the page cannot call another.
        const body = getComputedStyle(document.body).backgroundColor;
        return (body === 'rgba(0, 0, 0, 0)' ? getComputedStyle(document.documentElement).backgroundColor : body) === want;
      },
      expected,
      { timeout: 5000 },
    )
    .then(() => true, () => false);
  if (!reached) assert.equal(await backgroundOf(page), expected, message);
}

/** The --bg values of styles.css and the server-rendered pages, as computed colours. */
export const LIGHT_BACKGROUND = 'rgb(246, 247, 249)';
export const DARK_BACKGROUND = 'rgb(15, 17, 21)';
