// The entry script: small and free of the frameworks, so the first screen's requests start as soon
// as it runs, while React, the router and the screens (main.tsx) download and parse beside them
// (index.html preloads them: web/preloadDashboardPlugin.ts).
import { applyStoredTheme } from './theme';
import './earlyRequests';
// The first date formatter a page makes loads the browser's locale data: tens of milliseconds,
// which here, after the requests have left, pass while the dashboard's code is still arriving
// instead of between its arrival and the first render (docs/decisions/dashboard-first-load.md).
import './format';
import './styles.css';

// The colour theme, once the requests have left (theme.ts): this script runs as one task, so it is
// still set before anything is drawn into the page.
applyStoredTheme();

import('./main').catch(() => {
  // The dashboard's code did not arrive (the network failed, or a newer version was deployed
  // between this page and its code): say so instead of leaving a blank page.
  const root = document.getElementById('root');
  if (root !== null) root.textContent = 'The dashboard could not load. Reload the page to try again.';
});
