// The signed-in dashboard's frame: the top bar (brand, main navigation, search, account), the
// banners under it, the screen, and the command palette.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useState } from 'react';
import { useLocation as useRouterLocation } from 'react-router';
import { errorMessage } from '../api/errors';
import { ThemeSwitch } from '../components/ThemeSwitch';
import { VerifyEmailBanner } from '../components/VerifyEmailBanner';
import { loadOnFirstUse, useLoadingCode } from '../loadOnFirstUse';
import { siteQuery } from '../queries';
import { confirmLeaving, Link, navigate } from '../router';
import { useSession } from '../session';
import { SHORTCUT_MODIFIER } from '../shortcuts';
import { AdminLink } from './AdminLink';

const CommandPalette = loadOnFirstUse(() => import('../CommandPalette').then((module) => module.CommandPalette));

export function AppShell({ children }: { children: React.ReactNode }) {
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

