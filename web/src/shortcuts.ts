// How keyboard shortcuts are written for this computer: Cmd on a Mac, Ctrl elsewhere.

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/** "⌘" or "Ctrl+", to write before a key: ⌘K, Ctrl+K. */
export const SHORTCUT_MODIFIER = isMac ? '⌘' : 'Ctrl+';
