import { useId, useSyncExternalStore } from 'react';
import { currentTheme, setTheme, subscribeToTheme, THEME_CHOICES, type ThemeChoice } from '../theme';

const LABELS: Record<ThemeChoice, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/** Light, dark, or the system's setting; remembered on this browser. */
export function ThemeSwitch() {
  const choice = useSyncExternalStore(subscribeToTheme, currentTheme);
  const id = useId();
  return (
    <div className="theme-switch">
      <label htmlFor={id} className="visually-hidden">
        Theme
      </label>
      <select id={id} value={choice} onChange={(event) => setTheme(event.target.value as ThemeChoice)} title="Theme">
        {THEME_CHOICES.map((each) => (
          <option key={each} value={each}>
            {LABELS[each]}
          </option>
        ))}
      </select>
    </div>
  );
}
