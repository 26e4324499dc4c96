// Which frame a screen is drawn in follows the session: the sign-in screens for people signed
// out, the dashboard's shell for people signed in, and the not-found screen in either.
import { Suspense, useEffect, useState } from 'react';
import { Outlet } from 'react-router';
import { AuthScreen } from '../components/AuthScreen';
import { Loading } from '../components/Loading';
import { NotFoundPage } from '../pages/NotFound';
import { Link, navigate, queryOf, useLocation } from '../router';
import { useSession } from '../session';
import { AppShell } from '../shell/AppShell';
import { goAfterSignIn, takeNextAfterSignInLink } from '../signInRedirect';
import { useFocusAfterNavigation } from './useFocusAfterNavigation';

/** The frame of every screen: nothing is drawn until the session is known. */
export function Root() {
  const { user } = useSession();
  useFocusAfterNavigation();
  if (user === undefined) return <Loading label="Loading Siteward…" />;
  return <Outlet />;
}

/** A navigation decided by the session (signed in or out): nothing on screen may hold it. */
function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true, force: true }), [to]);
  return <Loading label="One moment…" />;
}

/** Signed in on a sign-in screen: on to where the sign-in was asked to lead. */
function AfterSignIn({ next }: { next: string | null }) {
  useEffect(() => goAfterSignIn(next), [next]);
  return <Loading label="One moment…" />;
}

export function SignedOutOnly() {
  const { user } = useSession();
  const location = useLocation();
  // Signed in on a sign-in screen: go where the sign-in was asked to lead (same-site only).
  if (user !== null && user !== undefined) return <AfterSignIn next={queryOf(location).get('next')} />;
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <Outlet />
    </Suspense>
  );
}

export function SignedInOnly() {
  const { user } = useSession();
  const location = useLocation();
  // Arriving signed in at "/" may be a redeemed sign-in link that was to lead elsewhere.
  const [nextAfterLink] = useState(() => (user !== null && user !== undefined && location === '/' ? takeNextAfterSignInLink() : null));
  if (user === null || user === undefined) {
    const next = location === '/' ? '' : `?next=${encodeURIComponent(location)}`;
    return <Redirect to={`/sign-in${next}`} />;
  }
  if (nextAfterLink !== null) return <AfterSignIn next={nextAfterLink} />;
  return (
    <AppShell>
      <Suspense fallback={<Loading label="Loading…" />}>
        <Outlet />
      </Suspense>
    </AppShell>
  );
}

/** Unknown addresses: inside the dashboard's frame when signed in, on the sign-in frame when not. */
export function NotFound() {
  const { user } = useSession();
  if (user === null || user === undefined) {
    return (
      <AuthScreen title="Page not found" intro="There is nothing at this address.">
        <Link to="/sign-in" className="button button-primary button-block">
          Go to sign in
        </Link>
      </AuthScreen>
    );
  }
  return (
    <AppShell>
      <NotFoundPage />
    </AppShell>
  );
}

