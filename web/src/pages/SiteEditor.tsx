import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type MouseEvent, useEffect, useMemo, useRef, useState } from 'react';
import { api, ApiError, errorMessage, type FieldError, type Site } from '../api';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { ColorField } from '../components/ColorField';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Field } from '../components/Field';
import { Loading } from '../components/Loading';
import { DangerZone } from '../editor/DangerZone';
import { HistorySection, siteVersionsKey } from '../editor/HistorySection';
import { InstallOffer } from '../editor/InstallOffer';
import { InstallSection } from '../editor/InstallSection';
import { IntegrationSection } from '../editor/IntegrationSection';
import { checkAnnouncement, type PartnerCheckResult } from '../editor/partnerCheckText';
import { partnerChecksKey } from '../editor/RecentChecks';
import { EDITOR_SECTIONS, type EditorSection, findSection, type SectionId, sectionOfPath, sectionPath } from '../editor/sections';
import { SettingsGroupCard } from '../editor/SettingsGroupCard';
import { WidgetPreview } from '../editor/WidgetPreview';
import '../editor/editor.css';
import { formatDateTime, formatRelative } from '../format';
import { COLOR_PATTERN } from '../color';
import { Link, navigate, useLeaveGuard, useLocationState } from '../router';
import { changesOf, clientErrors, draftOf, fieldLabel, hasChanges, messageFor, rebaseDraft, sameConfiguration, type SiteDraft, type TokenChange } from '../siteDraft';
import { NAME_MAX_LENGTH, type SettingsField } from '@server/sites/contract';
import type { PartnerDraft } from '@server/sites/schema';
import { WORKSPACE_ERRORS } from '@server/workspaces/errors';
import { useTitle } from '../useTitle';
import { roleWithArticle, siteAccess, type SiteAccess } from '../workspaceAccess';
import { useWorkspaces, type Workspace } from '../workspaces';

interface LoadedSite {
  site: Site;
  /** The version the form was loaded from; sent as If-Match so no one's save is overwritten unseen. */
  etag: string | null;
}

function siteUrl(siteId: string): string {
  return `/api/v1/sites/${encodeURIComponent(siteId)}`;
}

export function siteQueryKey(siteId: string) {
  return ['site', siteId] as const;
}

async function fetchSite(siteId: string): Promise<LoadedSite> {
  const response = await api.get<{ site: Site }>(siteUrl(siteId));
  return { site: response.data.site, etag: response.headers.get('etag') };
}

/** The site editor at /sites/:id (General) and /sites/:id/:section. */
export function SiteEditorPage({ siteId, section }: { siteId: string; section?: string | undefined }) {
  const query = useQuery({ queryKey: siteQueryKey(siteId), queryFn: () => fetchSite(siteId), staleTime: Number.POSITIVE_INFINITY });
  const workspaces = useWorkspaces();
  const [deleted, setDeleted] = useState<string>();
  const notFound = query.error instanceof ApiError && query.error.status === 404;
  useTitle(deleted !== undefined ? 'Site deleted' : query.data !== undefined ? query.data.site.name : notFound ? 'Site not found' : 'Site');

  if (deleted !== undefined) return <SiteDeleted name={deleted} />;
  // The role decides whether the form is editable: wait for it rather than flash an editable form.
  if (query.isPending || workspaces.isPending) return <Loading label="Loading the site…" />;
  if (notFound) {
    return (
      <section className="empty">
        <h1>Site not found</h1>
        <p>There is no site at this address. It may have been deleted, or it belongs to another account.</p>
        <Link to="/" className="button button-primary">
          Back to your sites
        </Link>
      </section>
    );
  }
  if (query.isError) {
    return (
      <Alert kind="error" title="The site could not be loaded">
        <p>{errorMessage(query.error)}</p>
        <Button onClick={() => void query.refetch()}>Try again</Button>
      </Alert>
    );
  }
  const current = findSection(section);
  const workspace = workspaces.data?.find((each) => each.id === query.data.site.workspace_id);
  // Without the workspaces (they failed to load) the form stays editable: the server has the last word.
  const access: SiteAccess = workspace === undefined ? { edit: true, delete: true, check: true } : siteAccess(workspace.role);
  return (
    <SiteEditorForm
      siteId={siteId}
      loaded={query.data}
      workspace={workspace}
      access={access}
      section={current}
      unknownSection={current === undefined ? section : undefined}
      onDeleted={setDeleted}
    />
  );
}

function SiteDeleted({ name }: { name: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="empty" role="status">
      <h1 ref={heading} tabIndex={-1}>
        {name} was deleted
      </h1>
      <p>
        It is in the <Link to="/trash">trash</Link>, where admins can restore it until it is deleted for good.
      </p>
      <Link to="/" className="button button-primary">
        Back to your sites
      </Link>
    </section>
  );
}

/** Moves between sections without asking about unsaved changes: the draft stays on screen. */
function goToSection(event: MouseEvent<HTMLAnchorElement>, to: string) {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(to, { replace: true, force: true });
}

/** Holds leaving the editor while there are unsaved changes; re-armed after each section change. */
function LeaveGuard({ active }: { active: boolean }) {
  useLeaveGuard(active);
  return null;
}

interface SiteEditorFormProps {
  siteId: string;
  loaded: LoadedSite;
  /** The site's workspace, with the person's role in it; undefined when it could not be loaded. */
  workspace: Workspace | undefined;
  access: SiteAccess;
  section: EditorSection | undefined;
  unknownSection: string | undefined;
  onDeleted: (name: string) => void;
}

function SiteEditorForm({ siteId, loaded, workspace, access, section, unknownSection, onDeleted }: SiteEditorFormProps) {
  const readOnly = !access.edit;
  const queryClient = useQueryClient();
  const saved = loaded.site;
  const etag = loaded.etag;
  const [draft, setDraft] = useState<SiteDraft>(() => draftOf(saved));
  const [serverErrors, setServerErrors] = useState<FieldError[]>([]);
  const [showClientErrors, setShowClientErrors] = useState(false);
  const [saveError, setSaveError] = useState<unknown>();
  const [justSaved, setJustSaved] = useState(false);
  const [conflict, setConflict] = useState(false);
  const [discarding, setDiscarding] = useState(false);
  const [checkError, setCheckError] = useState<string>();
  const [checkDone, setCheckDone] = useState('');
  const draftRef = useRef(draft);
  draftRef.current = draft;
  const saveBar = useRef<HTMLDivElement>(null);

  const changes = useMemo(() => changesOf(saved, draft), [saved, draft]);
  const dirty = hasChanges(changes);
  const localErrors = useMemo(() => clientErrors(changes), [changes]);
  // The form's own findings describe the current text; the server's describe what was sent.
  const errors = useMemo(() => [...(showClientErrors ? localErrors : []), ...serverErrors], [showClientErrors, localErrors, serverErrors]);
  const partnerUnsaved = changes.partner_settings !== undefined;
  const sectionId: SectionId = section?.id ?? 'general';

  const setLoaded = (next: LoadedSite) => queryClient.setQueryData(siteQueryKey(siteId), next);
  // Sites.tsx arrives here with this state right after creating the site: the next step is offered.
  const justCreated = (useLocationState() as { created?: unknown } | null)?.created === true;

  /** A rotation moved the ETag; adopted only if no one saved in between (as after a check, below). */
  function adoptRotatedKey(fresh: Site, tag: string | null) {
    const current = queryClient.getQueryData<LoadedSite>(siteQueryKey(siteId)) ?? loaded;
    setLoaded({ site: { ...current.site, public_key: fresh.public_key }, etag: sameConfiguration(current.site, fresh) ? tag : current.etag });
  }

  const saving = useMutation({
    mutationFn: async (sent: { changes: typeof changes; etag: string | null }) =>
      api.put<{ site: Site }>(siteUrl(siteId), sent.changes, { headers: sent.etag === null ? {} : { 'if-match': sent.etag } }),
  });
  const checking = useMutation({ mutationFn: async () => api.post<{ site: Site }>(`${siteUrl(siteId)}/partner/check`) });
  const reloading = useMutation({ mutationFn: () => fetchSite(siteId) });

  // No focused field may sit under the sticky save bar, however tall it grows (a conflict message
  // makes it taller). The page keeps room for it when scrolling to a target (scroll-padding), and
  // after the browser has scrolled a newly focused element into view, the rest is scrolled here:
  // browsers differ in whether their focus scrolling honours scroll-padding.
  useEffect(() => {
    const bar = saveBar.current;
    if (bar === null) return;
    const root = document.documentElement;
    const observer = new ResizeObserver(() => root.style.setProperty('scroll-padding-bottom', `${bar.offsetHeight + 24}px`));
    observer.observe(bar);
    const keepClearOfBar = (event: FocusEvent) => {
      const target = event.target;
      if (!(target instanceof HTMLElement) || bar.contains(target) || target.closest('dialog') !== null) return;
      const box = target.getBoundingClientRect();
      const limit = bar.getBoundingClientRect().top - 12;
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
    // A read-only editor has no bar; one that becomes editable (the role raised) gets it.
  }, [readOnly]);

  /** Applies an edit and forgets the errors reported on the fields it touched. */
  function edit(update: (current: SiteDraft) => SiteDraft, paths: string[]) {
    setDraft(update);
    setJustSaved(false);
    setServerErrors((current) => current.filter((error) => !paths.some((path) => error.path === path || error.path.startsWith(`${path}/`))));
  }

  const editPartner = (patch: Partial<PartnerDraft>) =>
    edit(
      (current) => ({ ...current, partner: { ...current.partner, ...patch } }),
      Object.keys(patch).map((field) => `/partner_settings/${field}`),
    );
  const editToken = (accessToken: TokenChange) => edit((current) => ({ ...current, accessToken }), ['/partner_settings/access_token']);
  const editSettings = (field: SettingsField, value: string) => edit((current) => ({ ...current, [field]: value }), [`/${field}`]);

  async function save() {
    if (readOnly || !dirty || saving.isPending || checking.isPending || conflict) return;
    if (localErrors.length > 0) {
      setShowClientErrors(true);
      focusFirstInvalid(siteId, sectionId, localErrors);
      return;
    }
    const sent = draft;
    setSaveError(undefined);
    setServerErrors([]);
    try {
      const response = await saving.mutateAsync({ changes, etag });
      const fresh = response.data.site;
      setLoaded({ site: fresh, etag: response.headers.get('etag') });
      void queryClient.invalidateQueries({ queryKey: ['sites'] });
      void queryClient.invalidateQueries({ queryKey: siteVersionsKey(siteId) });
      setDraft(rebaseDraft(sent, draftRef.current, draftOf(fresh)));
      setShowClientErrors(false);
      setJustSaved(true);
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) {
        // Someone saved in between. Keep every edit on screen; only the person decides to drop them.
        setConflict(true);
      } else {
        setSaveError(error);
        if (error instanceof ApiError) {
          setServerErrors(error.errors);
          focusFirstInvalid(siteId, sectionId, error.errors);
        }
      }
    }
  }

  const saveRef = useRef(save);
  saveRef.current = save;
  // Ctrl+S / Cmd+S saves instead of opening the browser's "save page" dialog.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 's') {
        event.preventDefault();
        void saveRef.current();
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  function startOver(next: LoadedSite) {
    setLoaded(next);
    setDraft(draftOf(next.site));
    setServerErrors([]);
    setShowClientErrors(false);
    setSaveError(undefined);
    setConflict(false);
  }

  async function reloadTheirVersion() {
    try {
      startOver(await reloading.mutateAsync());
    } catch {
      // Shown under the button from the mutation's error.
    }
  }

  async function checkConnection() {
    setCheckError(undefined);
    setCheckDone('');
    try {
      const response = await checking.mutateAsync();
      const fresh = response.data.site;
      const { last_status, last_error, last_checked_at } = fresh.partner_settings;
      // Recording the result moves the site's ETag. Adopt the new tag only when the stored
      // configuration is still the one this form was loaded from; if someone else saved in
      // between, keeping the old tag makes the next save report the conflict instead of
      // overwriting their change.
      const current = queryClient.getQueryData<LoadedSite>(siteQueryKey(siteId)) ?? loaded;
      setLoaded({
        site: { ...current.site, partner_settings: { ...current.site.partner_settings, last_status, last_error, last_checked_at } },
        etag: sameConfiguration(current.site, fresh) ? response.headers.get('etag') : current.etag,
      });
    } catch (error) {
      setCheckError(errorMessage(error));
      return;
    }
    // The check was recorded: Recent checks (and the details of the last check) load it.
    await queryClient.invalidateQueries({ queryKey: partnerChecksKey(siteId) });
    const newest = queryClient.getQueryData<PartnerCheckResult[]>(partnerChecksKey(siteId))?.[0];
    setCheckDone(newest === undefined ? 'Check finished.' : `Check finished. ${checkAnnouncement(newest)}`);
  }

  /** A test of the unsaved settings was refused for these fields (or, with none, accepted them all). */
  function showTestFieldErrors(found: FieldError[]) {
    const isPartnerField = (error: FieldError) => error.path.startsWith('/partner_settings/');
    setServerErrors((current) => [...current.filter((error) => !isPartnerField(error)), ...found]);
    if (found.length > 0) focusFirstInvalid(siteId, sectionId, found);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    void save();
  }

  const summary = saveError !== undefined ? errorSummary(saveError) : showClientErrors && localErrors.length > 0 ? localErrors : undefined;
  const errorCounts = new Map<SectionId, number>();
  for (const error of errors) errorCounts.set(sectionOfPath(error.path), (errorCounts.get(sectionOfPath(error.path)) ?? 0) + 1);
  const changedSections = new Set<SectionId>(Object.keys(changes).map((key) => sectionOfPath(`/${key}`)));
  const swatch = COLOR_PATTERN.test(saved.color) ? saved.color : undefined;

  return (
    <form className="site-editor" onSubmit={submit} noValidate aria-labelledby="site-editor-title">
      <LeaveGuard key={sectionId} active={dirty} />
      <header className="page-header">
        <div className="site-editor-heading">
          <Link to="/" className="back-link">
            ← All sites
          </Link>
          <h1 id="site-editor-title">
            <span className="swatch site-swatch-large" style={swatch === undefined ? undefined : { backgroundColor: swatch }} aria-hidden="true" />
            {saved.name}
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

      {readOnly && workspace !== undefined && (
        <Alert kind="info" title="View only">
          <p>
            You are {roleWithArticle(workspace.role)} in {workspace.name}: ask an admin for editor access.
          </p>
        </Alert>
      )}

      {summary !== undefined && <SaveErrorSummary error={saveError} fieldErrors={summary} siteId={siteId} />}

      <div className="editor-layout">
        <nav className="editor-nav" aria-label="Site settings">
          <ul>
            {EDITOR_SECTIONS.map((each) => {
              const count = errorCounts.get(each.id) ?? 0;
              const to = sectionPath(siteId, each.id);
              return (
                <li key={each.id}>
                  <a href={to} onClick={(event) => goToSection(event, to)} aria-current={each.id === sectionId && section !== undefined ? 'page' : undefined}>
                    <span>{each.title}</span>
                    {count > 0 && <span className="editor-nav-errors">{count === 1 ? '1 error' : `${count} errors`}</span>}
                    {count === 0 && changedSections.has(each.id) && <span className="editor-nav-changed">Edited</span>}
                  </a>
                </li>
              );
            })}
          </ul>
        </nav>

        <div className="editor-body">
          {section === undefined ? (
            <Alert kind="warning" title="There is no such section">
              <p>This site has no settings section called “{unknownSection}”. Choose one from the list.</p>
            </Alert>
          ) : (
            <SectionHeading section={section} />
          )}

          {sectionId === 'general' && section !== undefined && (
            <>
              {justCreated && <InstallOffer siteId={siteId} />}
              <section className="card" aria-labelledby="general-title">
                <div className="card-header">
                  <div>
                    <h3 id="general-title">Name and colour</h3>
                    <p>How the site is named and coloured in the dashboard.</p>
                  </div>
                </div>
                <fieldset className="form-grid" disabled={readOnly}>
                  <Field
                    label="Name"
                    value={draft.name}
                    maxLength={NAME_MAX_LENGTH}
                    required
                    onChange={(event) => {
                      const name = event.target.value;
                      edit((current) => ({ ...current, name }), ['/name']);
                    }}
                    hint="Spaces at the start and end are removed when you save."
                    error={messageFor(errors, '/name')}
                  />
                  <ColorField label="Colour" value={draft.color} onChange={(color) => edit((current) => ({ ...current, color }), ['/color'])} error={messageFor(errors, '/color')} />
                </fieldset>
              </section>
              {access.delete && <DangerZone siteId={siteId} name={saved.name} onDeleted={() => onDeleted(saved.name)} />}
            </>
          )}

          {section !== undefined && section.groups.length > 0 && (
            <div className={section.id === 'widget' || section.id === 'branding' ? 'editor-with-preview' : undefined}>
              <div className="settings-groups">
                {section.groups.map((field) => (
                  <SettingsGroupCard key={field} field={field} text={draft[field]} savedText={saved[field]} onChange={(value) => editSettings(field, value)} errors={errors} readOnly={readOnly} />
                ))}
              </div>
              {(section.id === 'widget' || section.id === 'branding') && (
                <aside className="editor-preview" aria-label="Widget preview">
                  <WidgetPreview draft={draft} />
                </aside>
              )}
            </div>
          )}

          {sectionId === 'install' && section !== undefined && <InstallSection siteId={siteId} name={saved.name} canRotate={access.edit} onRotated={adoptRotatedKey} />}

          {sectionId === 'history' && section !== undefined && (
            <HistorySection siteId={siteId} etag={etag} canRestore={access.edit} dirty={dirty} onRestored={(site, tag) => startOver({ site, etag: tag })} />
          )}

          {sectionId === 'integration' && section !== undefined && (
            <IntegrationSection
              siteId={siteId}
              saved={saved}
              draft={draft}
              readOnly={readOnly}
              canCheck={access.check}
              partnerUnsaved={partnerUnsaved}
              checkBusy={checking.isPending}
              checkError={checkError}
              checkAnnouncement={checkDone}
              onCheck={() => void checkConnection()}
              onPartnerChange={editPartner}
              onTokenChange={editToken}
              errors={errors}
              onTestFieldErrors={showTestFieldErrors}
            />
          )}
        </div>
      </div>

      {!readOnly && (
        <div className="save-bar" role="region" aria-label="Save changes" ref={saveBar}>
          {conflict && (
            <div className="alert alert-warning save-conflict" role="alert">
              <strong className="alert-title">Someone else saved this site since you opened it</strong>
              <p>Your changes have not been saved and are still on screen. Saving now would overwrite their work, so it is blocked.</p>
              {reloading.error !== null && <p className="field-error">{errorMessage(reloading.error)}</p>}
              <Button variant="danger" busy={reloading.isPending} onClick={() => void reloadTheirVersion()}>
                Reload their version (your changes will be lost)
              </Button>
            </div>
          )}
          <div className="save-bar-inner">
            <span className={`save-state ${dirty ? 'save-state-dirty' : ''}`} role="status">
              {saving.isPending ? 'Saving…' : dirty ? 'Unsaved changes' : justSaved ? 'Saved' : 'No changes'}
            </span>
            <div className="row">
              <Button variant="ghost" disabled={!dirty || saving.isPending} onClick={() => setDiscarding(true)}>
                Discard
              </Button>
              <Button type="submit" variant="primary" busy={saving.isPending} disabled={!dirty || conflict || checking.isPending} title="Save (Ctrl+S)">
                Save
              </Button>
            </div>
          </div>
        </div>
      )}

      <ConfirmDialog
        open={discarding}
        title="Discard your changes?"
        confirmLabel="Discard changes"
        danger
        onCancel={() => setDiscarding(false)}
        onConfirm={() => {
          setDiscarding(false);
          setDraft(draftOf(saved));
          setServerErrors([]);
          setShowClientErrors(false);
          setSaveError(undefined);
        }}
      >
        <p>Every section goes back to the saved version of {saved.name}.</p>
      </ConfirmDialog>
    </form>
  );
}

function SectionHeading({ section }: { section: EditorSection }) {
  return (
    <div className="section-heading">
      <h2>{section.title}</h2>
      <p>{section.description}</p>
    </div>
  );
}

/** Field errors as the summary lists them: the server's, or the form's own when it refused. */
function errorSummary(error: unknown): FieldError[] {
  return error instanceof ApiError ? error.errors : [];
}

function SaveErrorSummary({ error, fieldErrors, siteId }: { error: unknown; fieldErrors: FieldError[]; siteId: string }) {
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

/** After a refused save, show the section of the first field that needs attention and focus it. */
function focusFirstInvalid(siteId: string, current: SectionId, errors: FieldError[]) {
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
