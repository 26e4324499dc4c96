// The site editor's frame, in small parts: the heading, the row of sections, the save bar and the
// summary of a refused save. Each reads what it shows from the editor's state (useSiteEditor).
import { useEffect, useRef } from 'react';
import { WORKSPACE_ERRORS } from '@server/memberships/errors';
import { ApiError, errorMessage, type FieldError } from '../api/errors';
import type { Site } from '../api/types';
import { COLOR_PATTERN } from '../color';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { formatDateTime, formatRelative } from '../format';
import { Link } from '../router';
import { SHORTCUT_MODIFIER } from '../shortcuts';
import { fieldLabel } from '../siteDraft';
import type { Workspace } from '../workspaces';
import { goToSection } from './editorNavigation';
import { EDITOR_SECTIONS, type EditorSection, type SectionId, sectionOfPath, sectionPath } from './sections';
import type { SiteEditorState } from './useSiteEditor';

export function EditorHeader({ saved, workspace }: { saved: Site; workspace: Workspace | undefined }) {
  const swatch = COLOR_PATTERN.test(saved.color) ? saved.color : undefined;
  return (
    <header className="page-header">
      <div className="site-editor-heading">
        <Link to="/" className="back-link">
          ← All sites
        </Link>
        <h1 id="site-editor-title" title={saved.name}>
          <span className="swatch site-swatch-large" style={swatch === undefined ? undefined : { backgroundColor: swatch }} aria-hidden="true" />
          <span className="site-editor-name">{saved.name}</span>
        </h1>
        <p>
          {workspace !== undefined && !workspace.personal && <>In {workspace.name} · </>}
          Created <time dateTime={saved.created_at} title={formatDateTime(saved.created_at)}>{formatRelative(saved.created_at)}</time> · updated{' '}
          <time dateTime={saved.updated_at} title={formatDateTime(saved.updated_at)}>
            {formatRelative(saved.updated_at)}
          </time>
        </p>
      </div>
    </header>
  );
}

interface SectionNavProps {
  siteId: string;
  sectionId: SectionId;
  /** A known section is open (not an unknown address). */
  known: boolean;
  errors: FieldError[];
  changedSections: ReadonlySet<SectionId>;
}

/** The sections, each with its count of errors or an "Edited" mark; on a phone a row that keeps the open one in view. */
export function SectionNav({ siteId, sectionId, known, errors, changedSections }: SectionNavProps) {
  const list = useRef<HTMLUListElement>(null);
  const errorCounts = new Map<SectionId, number>();
  for (const error of errors) errorCounts.set(sectionOfPath(error.path), (errorCounts.get(sectionOfPath(error.path)) ?? 0) + 1);

  useEffect(() => {
    const row = list.current;
    const active = row?.querySelector<HTMLElement>('[aria-current="page"]');
    if (row === null || active === null || active === undefined || row.scrollWidth <= row.clientWidth) return;
    const start = active.offsetLeft - row.offsetLeft;
    const end = start + active.offsetWidth;
    if (start < row.scrollLeft || end > row.scrollLeft + row.clientWidth) row.scrollTo({ left: Math.max(0, start - 16), behavior: 'instant' });
  }, [sectionId]);

  return (
    <nav className="editor-nav" aria-label="Site settings">
      <ul ref={list}>
        {EDITOR_SECTIONS.map((each) => {
          const count = errorCounts.get(each.id) ?? 0;
          const to = sectionPath(siteId, each.id);
          return (
            <li key={each.id}>
              <a href={to} onClick={(event) => goToSection(event, to)} aria-current={each.id === sectionId && known ? 'page' : undefined}>
                <span>{each.title}</span>
                {count > 0 && <span className="editor-nav-errors">{count === 1 ? '1 error' : `${count} errors`}</span>}
                {count === 0 && changedSections.has(each.id) && <span className="editor-nav-changed">Edited</span>}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

export function SectionHeading({ section }: { section: EditorSection }) {
  return (
    <div className="section-heading">
      <h2>{section.title}</h2>
      <p>{section.description}</p>
    </div>
  );
}

/**
 * The sticky bar with the state and Save / Discard. No focused field may sit under it, however
 * tall it grows (a conflict message makes it taller): the page keeps room for it when scrolling to
 * a target (scroll-padding), and after the browser has scrolled a newly focused element into view,
 * the rest is scrolled here, since browsers differ in whether their focus scrolling honours it.
 */
export function SaveBar({ editor, onDiscard, bypassNote }: { editor: SiteEditorState; onDiscard: () => void; bypassNote?: string | undefined }) {
  const bar = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = bar.current;
    if (element === null) return;
    const root = document.documentElement;
    const observer = new ResizeObserver(() => root.style.setProperty('scroll-padding-bottom', `${element.offsetHeight + 24}px`));
    observer.observe(element);
    const keepClearOfBar = (event: FocusEvent) => {
      const target = event.target;
      if (!(target instanceof HTMLElement) || element.contains(target) || target.closest('dialog') !== null) return;
      const box = target.getBoundingClientRect();
      const limit = element.getBoundingClientRect().top - 12;
      if (box.bottom <= limit) return;
      // Bring its end above the bar, or its start to the top when it is taller than the room left.
      window.scrollBy({ top: Math.min(box.bottom - limit, Math.max(box.top - 12, 0)), behavior: 'instant' });
    };
    document.addEventListener('focusin', keepClearOfBar);
    return () => {
      observer.disconnect();
      document.removeEventListener('focusin', keepClearOfBar);
      root.style.removeProperty('scroll-padding-bottom');
    };
  }, []);

  const { saving, checking, dirty, conflict, justSaved } = editor;
  return (
    <div className="save-bar" role="region" aria-label="Save changes" ref={bar}>
      {conflict && (
        <div className="alert alert-warning save-conflict" role="alert">
          <strong className="alert-title">Someone else saved this site since you opened it</strong>
          <p>Your changes are not saved yet and are still on screen: choose what to keep at the top of the page.</p>
        </div>
      )}
      {bypassNote !== undefined && <p className="review-note muted">{bypassNote}</p>}
      <div className="save-bar-inner">
        <span className={`save-state ${dirty ? 'save-state-dirty' : ''}`} role="status">
          {saving.isPending ? 'Saving…' : dirty ? 'Unsaved changes' : justSaved ? 'Saved' : 'No changes'}
        </span>
        <span className="shortcut-hint save-shortcut" aria-hidden="true">
          <kbd>{SHORTCUT_MODIFIER}S</kbd> saves
        </span>
        <div className="row">
          <Button variant="ghost" disabled={!dirty || saving.isPending} onClick={onDiscard}>
            Discard
          </Button>
          <Button type="submit" variant="primary" busy={saving.isPending} disabled={!dirty || conflict || checking.isPending} aria-keyshortcuts="Control+S Meta+S">
            {editor.propose ? 'Propose change…' : 'Save'}
          </Button>
        </div>
      </div>
    </div>
  );
}

/** Why the last save did not go through: the server's reason, or the fields to fix, each a link to its section. */
export function SaveErrorSummary({ error, fieldErrors, siteId }: { error: unknown; fieldErrors: FieldError[]; siteId: string }) {
  const detail = error === undefined ? 'Fix the fields listed here, then save again.' : errorMessage(error);
  // The role was lowered while the person was editing: what they typed must not vanish with it.
  const keptNote = error instanceof ApiError && error.code === WORKSPACE_ERRORS.INSUFFICIENT_ROLE ? ' Your changes are still on screen: copy what you want to keep.' : '';
  return (
    <Alert kind="error" title="The site was not saved">
      {fieldErrors.length === 0 ? (
        <p>
          {detail}
          {keptNote}
        </p>
      ) : (
        <>
          <p>{error === undefined ? detail : 'The server refused these fields:'}</p>
          <ul className="error-summary">
            {fieldErrors.map((fieldError) => {
              const to = sectionPath(siteId, sectionOfPath(fieldError.path));
              return (
                <li key={`${fieldError.path}:${fieldError.message}`}>
                  <a href={to} onClick={(event) => goToSection(event, to)}>
                    <strong>{fieldLabel(fieldError.path)}</strong>
                  </a>
                  : {fieldError.message}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </Alert>
  );
}
