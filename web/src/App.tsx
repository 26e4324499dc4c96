import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactElement, Suspense, useEffect, useRef, useState } from 'react';
import { createBrowserRouter, Outlet, type RouteObject, RouterProvider, useLocation as useRouterLocation, useParams } from 'react-router';
import { SCREENS, type Screen } from '@server/web/screens';
import { errorMessage } from './api/errors';
import { AuthScreen } from './components/AuthScreen';
import { Loading } from './components/Loading';
import { ThemeSwitch } from './components/ThemeSwitch';
import { VerifyEmailBanner } from './components/VerifyEmailBanner';
import { NotFoundPage } from './pages/NotFound';
import { AppError, ScreenError } from './pages/ScreenError';
import { SignInPage } from './pages/SignIn';
import { SitesPage } from './pages/Sites';
import { loadOnFirstUse, useLoadingCode } from './loadOnFirstUse';
import { confirmLeaving, connectRouter, Link, navigate, queryOf, screenOf, useLocation } from './router';
import { accountQuery, siteQuery } from './queries';
import { SHORTCUT_MODIFIER } from './shortcuts';
import { useSession } from './session';
import { goAfterSignIn, takeNextAfterSignInLink } from './signInRedirect';

// The first screens anyone sees (sign-in, the sites list) are in the entry script; every other
// screen (the editor with its forms and compiled schemas, settings, workspaces, trash, sign-up)
// loads when first opened. A screen whose code fails to load (a newer version was deployed since
// the page loaded) throws like any failing screen: the error screen offers a reload.
const SignUpPage = loadOnFirstUse(() => import('./pages/SignUp').then((module) => module.SignUpPage));
const SiteEditorPage = loadOnFirstUse(() => import('./pages/SiteEditor').then((module) => module.SiteEditorPage));
const ProfilePage = loadOnFirstUse(() => import('./pages/Profile').then((module) => module.ProfilePage));
const AccessTokensPage = loadOnFirstUse(() => import('./pages/AccessTokens').then((module) => module.AccessTokensPage));
const WorkspacesPage = loadOnFirstUse(() => import('./pages/Workspaces').then((module) => module.WorkspacesPage));
const WorkspaceAuditLogPage = loadOnFirstUse(() => import('./pages/WorkspaceAuditLog').then((module) => module.WorkspaceAuditLogPage));
const WorkspaceWebhooksPage = loadOnFirstUse(() => import('./pages/WorkspaceWebhooks').then((module) => module.WorkspaceWebhooksPage));
const WorkspaceDetailPage = loadOnFirstUse(() => import('./pages/WorkspaceDetail').then((module) => module.WorkspaceDetailPage));
const SecurityPage = loadOnFirstUse(() => import('./pages/Security').then((module) => module.SecurityPage));
const CommandPalette = loadOnFirstUse(() => import('./CommandPalette').then((module) => module.CommandPalette));
const TrashPage = loadOnFirstUse(() => import('./pages/Trash').then((module) => module.TrashPage));
const ChangeRequestPage = loadOnFirstUse(() => import('./pages/ChangeRequest').then((module) => module.ChangeRequestPage));
const AdminPage = loadOnFirstUse(() => import('./pages/Admin').then((module) => module.AdminPage));

// The dashboard's screens are the server's list (src/web/screens.ts), which the server answers
// with index.html (any other path gets status 404, which the catch-all shows as the not-found
// screen). Each screen names its element and the frame it is drawn in; typed by the list, a screen
// added on one side and not the other fails the build.
type Frame = 'signed-out' | 'signed-in' | 'settings';
const SCREEN_ELEMENTS: Record<Screen, { frame: Frame; element: ReactElement }> = {
  '/sign-in': { frame: 'signed-out', element: <SignInPage /> },
  '/sign-up': { frame: 'signed-out', element: <SignUpPage /> },
  '/': { frame: 'signed-in', element: <SitesPage /> },
  '/sites': { frame: 'signed-in', element: <SitesPage /> },
  '/sites/:id': { frame: 'signed-in', element: <SiteEditorRoute /> },
  '/sites/:id/:section': { frame: 'signed-in', element: <SiteEditorRoute /> },
  '/sites/:id/change-requests/:cr_id': { frame: 'signed-in', element: <ChangeRequestRoute /> },
  '/trash': { frame: 'signed-in', element: <TrashPage /> },
  '/admin': { frame: 'signed-in', element: <AdminPage /> },
  '/settings': { frame: 'settings', element: <ProfilePage /> },
  '/settings/profile': { frame: 'settings', element: <ProfilePage /> },
  '/settings/access-tokens': { frame: 'settings', element: <AccessTokensPage /> },
  '/settings/security': { frame: 'settings', element: <SecurityPage /> },
  '/settings/workspaces': { frame: 'settings', element: <WorkspacesPage /> },
  '/settings/workspaces/:id': { frame: 'settings', element: <WorkspaceDetailRoute /> },
  '/settings/workspaces/:id/audit-log': { frame: 'settings', element: <WorkspaceAuditLogRoute /> },
  '/settings/workspaces/:id/webhooks': { frame: 'settings', element: <WorkspaceWebhooksRoute /> },
};

function screensIn(frame: Frame): RouteObject[] {
  return SCREENS.filter((path) => SCREEN_ELEMENTS[path].frame === frame).map((path) => ({ path, element: SCREEN_ELEMENTS[path].element }));
}

const router = createBrowserRouter([
  {
    element: <Root />,
    // A failure of the frame itself (the session, the top bar): a screen of its own that reloads.
    errorElement: <AppError />,
    children: [
      { element: <SignedOutOnly />, children: screensIn('signed-out') },
      {
        element: <SignedInOnly />,
        children: [
          {
            // A screen that fails while drawing is replaced by an error screen inside the frame:
            // the top bar stays, and moving to another screen leaves the error behind.
            errorElement: <ScreenError />,
            children: [...screensIn('signed-in'), { element: <SettingsLayout />, children: screensIn('settings') }],
          },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
]);
connectRouter(router);

export function App() {
  return <RouterProvider router={router} />;
}

function Root() {
  const { user } = useSession();
  useFocusAfterNavigation();
  if (user === undefined) return <Loading label="Loading Siteward…" />;
  return <Outlet />;
}

/** The editor's sections are one screen (keyed by site): the draft survives moving between them. */
function SiteEditorRoute() {
  const { id = '', section } = useParams();
  const props = { siteId: id, section };
  return <SiteEditorPage {...props} key={id} />;
}

/** A change request's screen, keyed by it: moving to another starts its forms afresh. */
function ChangeRequestRoute() {
  const { id = '', cr_id: crId = '' } = useParams();
  return <ChangeRequestPage siteId={id} changeRequestId={crId} key={`${id}/${crId}`} />;
}

/** One workspace's screen, keyed by it: moving to another starts its forms afresh. */
function WorkspaceDetailRoute() {
  const { id = '' } = useParams();
  return <WorkspaceDetailPage workspaceId={id} key={id} />;
}

function WorkspaceAuditLogRoute() {
  const { id = '' } = useParams();
  return <WorkspaceAuditLogPage workspaceId={id} key={id} />;
}

function WorkspaceWebhooksRoute() {
  const { id = '' } = useParams();
  return <WorkspaceWebhooksPage workspaceId={id} key={id} />;
}

/**
 * After moving to another screen, focus goes to its main heading (else its main), and the page
 * scrolls to the top, as a page load would: keyboard and screen reader users start on the new
 * screen instead of on the link they followed. Moving between the editor's sections and changing
 * a list's query keep focus where it is.
 */
function useFocusAfterNavigation() {
  const location = useRouterLocation();
  const screen = screenOf(location.pathname);
  const previous = useRef(screen);
  useEffect(() => {
    if (previous.current === screen) return;
    previous.current = screen;
    window.scrollTo(0, 0);
    // After the new screen has rendered its heading: a screen loaded on first use takes a few
    // frames, so look for up to a second before settling for <main>.
    let frame = 0;
    let framesLeft = 60;
    const focusHeading = () => {
      const heading = document.querySelector<HTMLElement>('main h1');
      if (heading === null && --framesLeft > 0) {
        frame = window.requestAnimationFrame(focusHeading);
        return;
      }
      const target = heading ?? document.querySelector<HTMLElement>('main');
      if (target === null) return;
      if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
      target.focus({ preventScroll: true });
    };
    frame = window.requestAnimationFrame(focusHeading);
    return () => window.cancelAnimationFrame(frame);
  }, [screen]);
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

function SignedOutOnly() {
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

function SignedInOnly() {
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
    <Shell>
      <Suspense fallback={<Loading label="Loading…" />}>
        <Outlet />
      </Suspense>
    </Shell>
  );
}

/** Unknown addresses: inside the dashboard's frame when signed in, on the sign-in frame when not. */
function NotFound() {
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
    <Shell>
      <NotFoundPage />
    </Shell>
  );
}

function Shell({ children }: { children: React.ReactNode }) {
  const { user, signOut } = useSession();
  const path = useRouterLocation().pathname;
  const signingOut = useMutation({ mutationFn: signOut, onSuccess: () => navigate('/sign-in', { replace: true, force: true }) });
  const inSettings = path.startsWith('/settings');
  const inSites = path === '/' || path.startsWith('/sites');
  const [paletteOpen, setPaletteOpen] = useState(false);
  const loadingCode = useLoadingCode();
  const queryClient = useQueryClient();
  // The site being edited, if any: the palette then offers its sections and settings by name.
  const editedSiteId = /^\/sites\/([^/]+)/.exec(path)?.[1];
  const editedSite = editedSiteId === undefined ? undefined : queryClient.getQueryData(siteQuery(decodeURIComponent(editedSiteId)).queryKey)?.site;

  // Ctrl+K / Cmd+K opens the palette from anywhere, a field included.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setPaletteOpen((open) => !open);
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  function handleSignOut() {
    // Unsaved edits on screen: the same question as leaving by a link.
    if (confirmLeaving()) signingOut.mutate();
  }

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand" aria-label="Siteward home">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">Siteward</span>
        </Link>
        <nav aria-label="Main" className="topnav">
          <Link to="/" aria-current={inSites ? 'page' : undefined}>
            Sites
          </Link>
          <Link to="/settings/profile" aria-current={inSettings ? 'page' : undefined}>
            Settings
          </Link>
          <AdminLink current={path.startsWith('/admin')} />
        </nav>
        <button type="button" className="button button-ghost palette-button" onClick={() => setPaletteOpen(true)} aria-keyshortcuts="Control+K Meta+K">
          <span className="palette-button-label">Search</span> <kbd>{SHORTCUT_MODIFIER}K</kbd>
        </button>
        <div className="account">
          <span className="account-email" title={user?.email}>
            {user?.email}
          </span>
          <ThemeSwitch />
          <button type="button" className="button button-ghost" onClick={handleSignOut} disabled={signingOut.isPending}>
            Sign out
          </button>
        </div>
      </header>
      {loadingCode && (
        <div className="code-loading" role="status">
          <span className="visually-hidden">Loading…</span>
        </div>
      )}
      {user !== null && user !== undefined && !user.email_verified && <VerifyEmailBanner email={user.email} />}
      {signingOut.error !== null && (
        <div className="alert alert-error" role="alert">
          {errorMessage(signingOut.error)}
        </div>
      )}
      <main id="main" className="content" tabIndex={-1}>
        {children}
      </main>
      {paletteOpen && (
        <Suspense fallback={null}>
          <CommandPalette onClose={() => setPaletteOpen(false)} site={editedSite === undefined ? undefined : { id: editedSite.id, name: editedSite.name }} />
        </Suspense>
      )}
    </div>
  );
}

/** The Admin area's entry, for instance administrators only. */
function AdminLink({ current }: { current: boolean }) {
  const account = useQuery({ ...accountQuery(), staleTime: Number.POSITIVE_INFINITY }).data;
  if (account?.instance_admin !== true) return null;
  return (
    <Link to="/admin" aria-current={current ? 'page' : undefined}>
      Admin
    </Link>
  );
}

function SettingsLayout() {
  const path = useRouterLocation().pathname;
  return (
    <div className="settings">
      <nav aria-label="Settings" className="subnav">
        <Link to="/settings/profile" aria-current={path === '/settings/profile' || path === '/settings' ? 'page' : undefined}>
          Profile
        </Link>
        <Link to="/settings/access-tokens" aria-current={path === '/settings/access-tokens' ? 'page' : undefined}>
          Access tokens
        </Link>
        <Link to="/settings/security" aria-current={path === '/settings/security' ? 'page' : undefined}>
          Security
        </Link>
        <Link to="/settings/workspaces" aria-current={path === '/settings/workspaces' ? 'page' : path.startsWith('/settings/workspaces/') ? 'location' : undefined}>
          Workspaces
        </Link>
      </nav>
      <div className="settings-body">
        <Suspense fallback={<Loading label="Loading…" />}>
          <Outlet />
        </Suspense>
      </div>
    </div>
  );
}
