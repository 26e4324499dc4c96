// Light, dark, or whatever the system says. The choice lives in localStorage and is applied by the
// entry script (boot.ts, `applyStoredTheme`) once it has started the first requests, in the same
// task, so before anything is drawn into the page (the CSP allows no inline script in index.html
// to do it earlier). No React here: the entry script loads without the frameworks.

export const THEME_CHOICES = ['system', 'light', 'dark'] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];

const STORAGE_KEY = 'siteward.theme';
const listeners = new Set<() => void>();

function isThemeChoice(value: unknown): value is ThemeChoice {
  return typeof value === 'string' && (THEME_CHOICES as readonly string[]).includes(value);
}

function readStoredTheme(): ThemeChoice {
  try {
    const stored = window.localStorage.getItem(STORAGE_KEY);
    return isThemeChoice(stored) ? stored : 'system';
  } catch {
    // Storage may be off (privacy settings): the system's choice still applies.
    return 'system';
  }
}

let current: ThemeChoice = 'system';

const systemDark = window.matchMedia('(prefers-color-scheme: dark)');

/** data-theme always names the colours shown; "system" takes them from the system's setting. */
function applyTheme(choice: ThemeChoice): void {
  document.documentElement.dataset.theme = choice === 'system' ? (systemDark.matches ? 'dark' : 'light') : choice;
}

/**
 * Applies the remembered choice and follows changes from then on. Called by the entry script after
 * its requests have left: the first read of localStorage waits on the browser process (a
 * synchronous call, milliseconds in a fresh profile).
 */
export function applyStoredTheme(): void {
  current = readStoredTheme();
  applyTheme(current);
  // The system switched between light and dark while the page is open.
  systemDark.addEventListener('change', () => applyTheme(current));
  // Another tab changed it: follow.
  window.addEventListener('storage', (event) => {
    if (event.key !== STORAGE_KEY) return;
    current = readStoredTheme();
    applyTheme(current);
    for (const listener of listeners) listener();
  });
}

export function setTheme(choice: ThemeChoice): void {
  current = choice;
  try {
    if (choice === 'system') window.localStorage.removeItem(STORAGE_KEY);
    else window.localStorage.setItem(STORAGE_KEY, choice);
  } catch {
    // Not remembered, but applied for this visit.
  }
  applyTheme(choice);
  for (const listener of listeners) listener();
}

/** For ThemeSwitch, through useSyncExternalStore. */
export function subscribeToTheme(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const currentTheme = (): ThemeChoice => current;
