// Moving about the editor: between its sections (one draft, so no "leave?" question) and to the
// first field that needs attention after a refused save.
import type { MouseEvent } from 'react';
import type { FieldError } from '../api/errors';
import { navigate } from '../router';
import { type SectionId, sectionOfPath, sectionPath } from './sections';

/** Moves between sections without asking about unsaved changes: the draft stays on screen. */
export function goToSection(event: MouseEvent<HTMLAnchorElement>, to: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(to, { replace: true, force: true });
}

/** After a refused save, show the section of the first field that needs attention and focus it. */
export function focusFirstInvalid(siteId: string, current: SectionId, errors: FieldError[]): void {
  const first = errors[0];
  if (first !== undefined && sectionOfPath(first.path) !== current) navigate(sectionPath(siteId, sectionOfPath(first.path)), { replace: true, force: true });
  window.requestAnimationFrame(() => {
    window.requestAnimationFrame(() => {
      const field = document.querySelector<HTMLElement>('.site-editor [aria-invalid="true"], .site-editor .json-editor-invalid');
      // The JSON editor lives in a shadow root (SettingsTextEditor): focus its text inside.
      (field?.shadowRoot?.querySelector<HTMLElement>('.cm-content') ?? field)?.focus();
    });
  });
}
