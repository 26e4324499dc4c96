// How keyboard shortcuts are written for this computer (Cmd on a Mac, Ctrl elsewhere), and when a
// page's single-key shortcuts ("/", j, k) may act.

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/** "⌘" or "Ctrl+", to write before a key: ⌘K, Ctrl+K. */
export const SHORTCUT_MODIFIER = isMac ? '⌘' : 'Ctrl+';

/**
 * Whether a key press belongs to something else than the page: typing in a field, a key with a
 * modifier (the browser's and the system's), or anything inside a dialog open over the page.
 */
export function isForSomethingElse(event: KeyboardEvent): boolean {
  if (event.ctrlKey || event.metaKey || event.altKey) return true;
  const target = event.target;
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.closest('dialog') !== null;
}

/**
 * The row j (next) or k (previous) moves to in a list of `count` rows from row `current` (-1 when
 * no row has focus: j starts at the first row, k at the last); it stops at either end. undefined for
 * any other key, or an empty list.
 */
export function rowAfterKey(key: string, current: number, count: number): number | undefined {
  if (count === 0 || (key !== 'j' && key !== 'k')) return undefined;
  if (current < 0) return key === 'j' ? 0 : count - 1;
  return key === 'j' ? Math.min(current + 1, count - 1) : Math.max(current - 1, 0);
}
