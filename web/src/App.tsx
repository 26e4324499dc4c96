import { useEffect, useState } from 'react';
import { errorMessage } from './api';
import { Loading } from './components/Loading';
import { VerifyEmailBanner } from './components/VerifyEmailBanner';
import { AccessTokensPage } from './pages/AccessTokens';
import { NotFoundPage } from './pages/NotFound';
import { ProfilePage } from './pages/Profile';
import { SecurityPage } from './pages/Security';
import { SignInPage } from './pages/SignIn';
import { SignUpPage } from './pages/SignUp';
import { SiteEditorPage } from './pages/SiteEditor';
import { SitesPage } from './pages/Sites';
import { Link, navigate, pathOf, queryOf, useLocation } from './router';
import { safeNextPath } from './signInRedirect';
import { useSession } from './session';

/** Screens anyone may see; every other one needs a session. */
const PUBLIC_PATHS = new Set(['/sign-in', '/sign-up']);

export function App() {
  const location = useLocation();
  const path = pathOf(location);
  const { user } = useSession();

  useEffect(() => {
    if (user === null && !PUBLIC_PATHS.has(path)) {
      const next = path === '/' ? '' : `?next=${encodeURIComponent(location)}`;
      navigate(`/sign-in${next}`, { replace: true, force: true });
    }
    // Signed in on a sign-in screen: go where the sign-in was asked to lead (same-site only).
    if (user !== null && user !== undefined && PUBLIC_PATHS.has(path)) navigate(safeNextPath(queryOf(location).get('next')), { replace: true, force: true });
  }, [user, path, location]);

  if (user === undefined) return <Loading label="Loading Siteward…" />;
  if (user === null) {
    if (path === '/sign-up') return <SignUpPage />;
    if (path === '/sign-in') return <SignInPage />;
    return <Loading label="Redirecting to sign in…" />;
  }
  return (
    <Shell path={path}>
      <Screen path={path} />
    </Shell>
  );
}

function Screen({ path }: { path: string }) {
  if (path === '/' || path === '/sites') return <SitesPage />;
  const site = /^\/sites\/([^/]+)(?:\/([^/]+))?$/.exec(path);
  if (site?.[1] !== undefined) return <SiteEditorPage siteId={decodeURIComponent(site[1])} section={site[2]} key={site[1]} />;
  if (path === '/settings' || path === '/settings/profile') return <ProfilePage />;
  if (path === '/settings/access-tokens') return <AccessTokensPage />;
  if (path === '/settings/security') return <SecurityPage />;
  return <NotFoundPage />;
}

function Shell({ path, children }: { path: string; children: React.ReactNode }) {
  const { user, signOut } = useSession();
  const [signOutError, setSignOutError] = useState<string>();
  const inSettings = path.startsWith('/settings');

  async function handleSignOut() {
    try {
      await signOut();
    } catch (error) {
      setSignOutError(errorMessage(error));
    }
  }

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand" aria-label="Siteward home">
          <span className="brand-mark" aria-hidden="true" />
          Siteward
        </Link>
        <nav aria-label="Main" className="topnav">
          <Link to="/" aria-current={!inSettings ? 'page' : undefined}>
            Sites
          </Link>
          <Link to="/settings/profile" aria-current={inSettings ? 'page' : undefined}>
            Settings
          </Link>
        </nav>
        <div className="account">
          <span className="account-email" title={user?.email}>
            {user?.email}
          </span>
          <button type="button" className="button button-ghost" onClick={handleSignOut}>
            Sign out
          </button>
        </div>
      </header>
      {user !== null && user !== undefined && !user.email_verified && <VerifyEmailBanner email={user.email} />}
      {signOutError !== undefined && (
        <div className="alert alert-error" role="alert">
          {signOutError}
        </div>
      )}
      <main id="main" className="content" tabIndex={-1}>
        {inSettings ? (
          <div className="settings">
            <nav aria-label="Settings" className="subnav">
              <Link to="/settings/profile" aria-current={path === '/settings/profile' || path === '/settings' ? 'page' : undefined}>
                Profile
              </Link>
              <Link to="/settings/access-tokens" aria-current={path === '/settings/access-tokens' ? 'page' : undefined}>
                Access Tokens
              </Link>
              <Link to="/settings/security" aria-current={path === '/settings/security' ? 'page' : undefined}>
                Security
              </Link>
            </nav>
            <div className="settings-body">{children}</div>
          </div>
        ) : (
          children
        )}
      </main>
    </div>
  );
}
