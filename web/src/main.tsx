// First: the colour theme, before anything renders (see theme.ts).
import './theme';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ReauthenticationProvider } from './reauthentication';
import { SessionProvider } from './session';
import { SignInAgainProvider } from './signInAgain';
import './styles.css';

// Server state lives in one query cache; a failed request is shown, not retried behind the person's back.
const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <SignInAgainProvider>
          <ReauthenticationProvider>
            <App />
          </ReauthenticationProvider>
        </SignInAgainProvider>
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
