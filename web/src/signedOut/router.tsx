// The signed-out document's stand-in for the dashboard's router (../router.tsx), put in its place
// by that document's build (web/vite.signed-out.config.ts), so the sign-in and sign-up screens run
// unchanged without a data router. Every way out of these pages is a page load: to the other
// signed-out page, or into the dashboard once signed in. Only the names those screens use are
// here; a screen that needs another fails that build.
import type * as DashboardRouter from '../router';

export { queryOf } from '../location';

export const navigate: typeof DashboardRouter.navigate = (to, options = {}) => {
  if (options.replace === true) window.location.replace(to);
  else window.location.assign(to);
};

/** The address never changes under a page: leaving it loads another. */
export const useLocation: typeof DashboardRouter.useLocation = () => window.location.pathname + window.location.search;

export function Link({ to, state: _state, ...rest }: Parameters<typeof DashboardRouter.Link>[0]) {
  return <a href={to} {...rest} />;
}
