// The entry script: small and free of the frameworks, so the first screen's requests start as soon
// as it runs, while React, the router and the screens (main.tsx) download and parse beside them.
// First: the colour theme, before anything paints (see theme.ts).
import './theme';
import './earlyRequests';
import './styles.css';

void import('./main');
