// First: the colour theme, before anything renders (see theme.ts).
import './theme';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ReauthenticationProvider } from './reauthentication';
import { accountQuery, siteListQuery } from './queries';
import { SessionProvider } from './session';
import { SignInAgainProvider } from './signInAgain';
import { ToastProvider } from './toasts';
import { siteListQueryFrom } from './siteList';
import './styles.css';

// Server state lives in one query cache; a failed request is shown, not retried behind the person's back.
const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });

// A cold load asks who is signed in and, on the sites list, for its first page at once, instead of
// one after the other. Signed out, the list's 401 is dropped: the sign-in screen shows instead.
void queryClient.prefetchQuery({ ...accountQuery(), staleTime: Number.POSITIVE_INFINITY });
if (window.location.pathname === '/' || window.location.pathname === '/sites') {
  const list = siteListQuery(siteListQueryFrom(new URLSearchParams(window.location.search)), { quiet: true });
  queryClient.fetchQuery(list).catch(() => {
    queryClient.removeQueries({ queryKey: list.queryKey, exact: true });
  });
}

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <SignInAgainProvider>
          <ReauthenticationProvider>
            <ToastProvider>
              <App />
            </ToastProvider>
          </ReauthenticationProvider>
        </SignInAgainProvider>
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
