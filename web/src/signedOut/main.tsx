// The signed-out document's script (web/signed-out.html): the dashboard's own sign-in and sign-up
// screens, built against Preact with a stand-in for the router (web/vite.signed-out.config.ts), so
// that someone signed out loads only what these screens need. The server sends this document only
// to someone not signed in (src/web/static.ts); signing in leaves it for the dashboard by a page
// load (docs/decisions/dashboard-signed-out-document.md).
import { focusManager, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { SignInPage } from '../pages/SignIn';
import { SignUpPage } from '../pages/SignUp';
import { accountQuery } from '../queries';
import { SessionProvider } from '../session';
import { applyStoredTheme } from '../theme';
import '../styles.css';

applyStoredTheme();

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });
// No one is signed in: the server said so by sending this document. Nobody asks again, neither
// now nor on returning to the tab (each answer would be a 401 the browser logs as an error); the
// screens ask once a sign-in has succeeded (`refresh`).
queryClient.setQueryData(accountQuery().queryKey, null);
focusManager.setEventListener(() => undefined);

const root = document.getElementById('root');
if (root === null) throw new Error('signed-out.html has no #root');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>{window.location.pathname === '/sign-up' ? <SignUpPage /> : <SignInPage />}</SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
