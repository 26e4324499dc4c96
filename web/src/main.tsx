// The dashboard itself, loaded by the entry script (boot.ts) once it has started the first requests.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ReauthenticationProvider } from './reauthentication';
import { accountQuery, siteListQuery } from './queries';
import { SessionProvider } from './session';
import { SignInAgainProvider } from './signInAgain';
import { ToastProvider } from './toasts';
import { earlyAccount, earlySiteList } from './earlyRequests';

// Server state lives in one query cache; a failed request is shown, not retried behind the person's back.
const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });

// The first requests started in boot.ts land in the cache as these queries' first answers.
// Signed out, the list's 401 is dropped: the sign-in screen shows instead.
void queryClient.prefetchQuery({ ...accountQuery(), queryFn: () => earlyAccount, staleTime: Number.POSITIVE_INFINITY });
if (earlySiteList !== undefined) {
  const { query, page } = earlySiteList;
  const list = siteListQuery(query);
  queryClient.fetchQuery({ ...list, queryFn: () => page }).catch(() => {
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
