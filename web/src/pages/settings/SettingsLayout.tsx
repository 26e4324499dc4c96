import { Suspense } from 'react';
import { Outlet, useLocation as useRouterLocation } from 'react-router';
import { Loading } from '../../components/Loading';
import { Link } from '../../router';

/** The settings' frame: their own navigation beside the screen. */
export function SettingsLayout() {
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
