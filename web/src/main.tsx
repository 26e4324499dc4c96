import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ReauthenticationProvider } from './reauthentication';
import { SessionProvider } from './session';
import './styles.css';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <SessionProvider>
      <ReauthenticationProvider>
        <App />
      </ReauthenticationProvider>
    </SessionProvider>
  </StrictMode>,
);
