// The first screen's requests, made by the entry script (boot.ts) while the frameworks and the
// screens are still downloading and parsing, instead of after: who is signed in and, on the sites
// list, its first page, at once (the list is every workspace's sites unless the address names one,
// so it needs nothing from the account). index.html preloads both (the list's page on the list's
// addresses without a query: src/web/static.ts), so they are on their way while the page is read,
// and these requests take the preloaded answers. main.tsx hands the answers to the query cache
// under the queries' own keys (queries.ts), so no screen asks again.
import { SITE_LIST_SCREENS } from '@server/web/screens';
import { fetchAccount } from './api/account';
import { fetchSiteSummaries } from './api/sites';
import { siteListQueryFrom, type SiteListQuery } from './siteList';

function started<T>(pending: Promise<T>): Promise<T> {
  // Settled before main.tsx takes it, a failure is not reported as unhandled; main.tsx reads it.
  pending.catch(() => undefined);
  return pending;
}

/**
 * GET /api/v1/me, or null when no one is signed in. Someone signed out who opens a sign-in screen
 * gets the signed-out document instead (src/web/static.ts), which asks nothing.
 */
export const earlyAccount: Promise<Awaited<ReturnType<typeof fetchAccount>>> = started(fetchAccount());

/**
 * The list's first page on the sites list's addresses. Quiet: before anyone knows whether a session
 * exists, its 401 asks no one to sign in (main.tsx drops it; the sign-in screen shows).
 */
export const earlySiteList: { query: SiteListQuery; page: ReturnType<typeof fetchSiteSummaries> } | undefined =
  (SITE_LIST_SCREENS as readonly string[]).includes(window.location.pathname)
    ? (() => {
        const query = siteListQueryFrom(new URLSearchParams(window.location.search));
        return { query, page: started(fetchSiteSummaries(query, undefined, { quiet: true })) };
      })()
    : undefined;
