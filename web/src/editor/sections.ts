// The site editor's sections: each has an address (/sites/:id/:section; General at /sites/:id)
// and holds some of the site's fields, so errors can be counted and shown where they belong.
import type { SettingsField } from '@server/sites/contract';

export const EDITOR_SECTIONS = [
  { id: 'general', title: 'General', description: 'The site\'s name and colour in this dashboard.', groups: [] },
  { id: 'install', title: 'Install', description: 'Put the site on your pages: the line to paste, its public key, and where it was loaded lately.', groups: [] },
  { id: 'usage', title: 'Usage', description: 'What reached the public path: loads and revalidations per hour or day, event streams, the pages they came from and visitors now.', groups: [] },
  { id: 'ai', title: 'AI', description: 'How the assistant answers: model, instructions, tone and hand-off to a person.', groups: ['ai_settings'] },
  { id: 'email', title: 'E-mail', description: 'Who e-mails come from and how they are signed.', groups: ['email_settings'] },
  { id: 'widget', title: 'Widget', description: 'The chat button and window on your pages.', groups: ['widget'] },
  { id: 'portal', title: 'Portal', description: 'The public help centre: where it lives and who sees it.', groups: ['portal'] },
  { id: 'branding', title: 'Branding & theme', description: 'Your name, logo, colours and the look of the public pages.', groups: ['branding', 'public_theme'] },
  { id: 'knowledge', title: 'Knowledge', description: 'Where the assistant looks for answers.', groups: ['knowledge_sources'] },
  { id: 'integration', title: 'Integration', description: 'The partner service, reached over HTTP and MCP.', groups: [] },
  { id: 'change-requests', title: 'Change requests', description: 'Changes proposed for review: the ones waiting first, then earlier ones. Each opens with its changes, approvals and comments.', groups: [] },
  { id: 'history', title: 'History', description: 'Every saved change: who made it, when, how, and what it changed. Any earlier version can be restored.', groups: [] },
] as const satisfies ReadonlyArray<{ id: string; title: string; description: string; groups: readonly SettingsField[] }>;

export type EditorSection = (typeof EDITOR_SECTIONS)[number];
export type SectionId = EditorSection['id'];

export function findSection(id: string | undefined): EditorSection | undefined {
  if (id === undefined) return EDITOR_SECTIONS[0];
  return EDITOR_SECTIONS.find((section) => section.id === id);
}

export function sectionPath(siteId: string, section: SectionId): string {
  const base = `/sites/${encodeURIComponent(siteId)}`;
  return section === 'general' ? base : `${base}/${section}`;
}

/** The section that shows the field an error path names ("/widget/accent_color" → widget). */
export function sectionOfPath(path: string): SectionId {
  const top = path.split('/')[1] ?? '';
  if (top === 'partner_settings') return 'integration';
  const owner = EDITOR_SECTIONS.find((section) => (section.groups as readonly string[]).includes(top));
  return owner?.id ?? 'general';
}
