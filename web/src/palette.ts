// What the command palette (Ctrl/Cmd+K) offers and how it finds it: every place to go (a screen,
// a section of Settings, a workspace, a setting by its name, a site) and what to do (create a
// site), matched by the words typed. Pure, so the matching is tested on its own.

export interface PaletteItem {
  id: string;
  label: string;
  /** Where the item is listed: "Go to", "Settings", "Workspaces", "Sites", "Actions". */
  group: string;
  /** Other words it is found by ("2FA" for two-factor authentication). */
  keywords?: readonly string[];
  /** A hint beside it: the screen a setting lives on. */
  detail?: string;
  /** Where it leads (an address of the dashboard). */
  to: string;
  /** A setting of the open site, as the site's path names it ("/widget/launcher_text"): its field is focused and highlighted there. */
  setting?: string;
}

function normalise(text: string): string {
  return text.toLocaleLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
}

function wordsOf(text: string): string[] {
  return normalise(text).split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '');
}

/**
 * How well an item answers the query, higher is better; 0 when it does not. Every word typed must
 * begin a word of the label or keywords (or, failing that, appear inside the label). The label
 * starting with what was typed ranks first, then labels whose words all match, then keywords.
 */
export function matchScore(item: PaletteItem, query: string): number {
  const typed = wordsOf(query);
  if (typed.length === 0) return 1;
  const label = normalise(item.label);
  const labelWords = wordsOf(item.label);
  const keywordWords = (item.keywords ?? []).flatMap(wordsOf);
  let score = 0;
  for (const word of typed) {
    if (labelWords.some((each) => each.startsWith(word))) score += 3;
    else if (keywordWords.some((each) => each.startsWith(word))) score += 2;
    else if (label.includes(word)) score += 1;
    else return 0;
  }
  if (label.startsWith(normalise(query.trim()))) score += 10;
  return score;
}

/** The items that match, best first; items that score the same keep their given order. */
export function searchPalette(items: readonly PaletteItem[], query: string, limit = 12): PaletteItem[] {
  return items
    .map((item, index) => ({ item, index, score: matchScore(item, query) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((entry) => entry.item);
}

/** The dashboard's screens and the settings people look for by name. */
export const SCREEN_ITEMS: readonly PaletteItem[] = [
  { id: 'screen:sites', label: 'Sites', group: 'Go to', to: '/', keywords: ['home', 'list'] },
  { id: 'screen:trash', label: 'Trash', group: 'Go to', to: '/trash', keywords: ['deleted', 'restore'] },
  { id: 'screen:profile', label: 'Profile', group: 'Settings', to: '/settings/profile', keywords: ['name', 'account'] },
  { id: 'screen:access-tokens', label: 'Access tokens', group: 'Settings', to: '/settings/access-tokens', keywords: ['api', 'pat', 'integration'] },
  { id: 'screen:security', label: 'Security', group: 'Settings', to: '/settings/security' },
  { id: 'screen:workspaces', label: 'Workspaces', group: 'Settings', to: '/settings/workspaces', keywords: ['teams'] },
  { id: 'setting:email', label: 'E-mail address', group: 'Settings', detail: 'Profile', to: '/settings/profile', keywords: ['change email', 'address'] },
  { id: 'setting:delete-account', label: 'Delete account', group: 'Settings', detail: 'Profile', to: '/settings/profile' },
  { id: 'setting:password', label: 'Password', group: 'Settings', detail: 'Security', to: '/settings/security', keywords: ['change password'] },
  { id: 'setting:two-factor', label: 'Two-factor authentication', group: 'Settings', detail: 'Security', to: '/settings/security', keywords: ['2fa', 'totp', 'authenticator', 'recovery codes'] },
  { id: 'setting:passkeys', label: 'Passkeys', group: 'Settings', detail: 'Security', to: '/settings/security', keywords: ['webauthn', 'security key'] },
  { id: 'setting:sessions', label: 'Signed-in devices', group: 'Settings', detail: 'Security', to: '/settings/security', keywords: ['sessions', 'sign out everywhere'] },
  { id: 'setting:activity', label: 'Recent activity', group: 'Settings', detail: 'Security', to: '/settings/security', keywords: ['sign-ins', 'log'] },
  { id: 'action:new-site', label: 'Create a site', group: 'Actions', to: '/?new=site', keywords: ['new site', 'add'] },
];
