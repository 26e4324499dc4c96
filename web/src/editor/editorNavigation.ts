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

/** How long a setting's field is waited for after a jump to it: its section may still be loading. */
const SETTING_WAIT_MS = 5000;
const HIGHLIGHT_CLASS = 'setting-highlight';

/**
 * After a jump to a setting by its name (the command palette): focuses its field once its section
 * shows it, and highlights the field until focus leaves it, so the eye finds it among the others.
 * Fields carry their path in data-setting (GroupForm).
 */
export function focusSetting(path: string): void {
  const selector = `.site-editor [data-setting="${CSS.escape(path)}"]`;
  const show = (anchor: Element): void => {
    const control = anchor.matches('input, select, textarea') ? anchor : anchor.querySelector<HTMLElement>('input, select, textarea, button');
    if (!(control instanceof HTMLElement)) return;
    const field = control.closest('.field, .group-fieldset') ?? control;
    field.classList.add(HIGHLIGHT_CLASS);
    control.addEventListener('focusout', () => field.classList.remove(HIGHLIGHT_CLASS), { once: true });
    control.focus();
    control.scrollIntoView({ block: 'center' });
  };
  const found = document.querySelector(selector);
  if (found !== null) {
    show(found);
    return;
  }
  const observer = new MutationObserver(() => {
    const anchor = document.querySelector(selector);
    if (anchor === null) return;
    observer.disconnect();
    show(anchor);
  });
  observer.observe(document.body, { childList: true, subtree: true });
  window.setTimeout(() => observer.disconnect(), SETTING_WAIT_MS);
}
