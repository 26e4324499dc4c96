import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, ApiError, errorMessage, type FieldError, type Site } from '../api';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { ColorField } from '../components/ColorField';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Field } from '../components/Field';
import { Loading } from '../components/Loading';
import { PartnerCheck } from '../components/PartnerCheck';
import { PartnerSettingsForm } from '../components/PartnerSettingsForm';
import { SettingsTextEditor } from '../components/SettingsTextEditor';
import { formatDateTime, formatRelative } from '../format';
import { Link, useLeaveGuard } from '../router';
import {
  changesOf,
  clientErrors,
  draftOf,
  fieldLabel,
  hasChanges,
  messageFor,
  rebaseDraft,
  sameConfiguration,
  SETTINGS_GROUPS,
  type SiteDraft,
  type TokenChange,
} from '../siteDraft';
import { NAME_MAX_LENGTH, SETTINGS_MAX_BYTES, type SettingsField } from '@server/sites/contract';
import type { PartnerDraft } from '@server/sites/schema';
import { useTitle } from '../useTitle';

interface LoadedSite {
  site: Site;
  /** The version the form was loaded from; sent as If-Match so no one's save is overwritten unseen. */
  etag: string | null;
}

type LoadState = { kind: 'loading' } | { kind: 'not-found' } | { kind: 'failed'; error: unknown } | { kind: 'ready'; loaded: LoadedSite };

function siteUrl(siteId: string): string {
  return `/api/v1/sites/${encodeURIComponent(siteId)}`;
}

async function fetchSite(siteId: string): Promise<LoadedSite> {
  const response = await api.get<{ site: Site }>(siteUrl(siteId));
  return { site: response.data.site, etag: response.headers.get('etag') };
}

export function SiteEditorPage({ siteId }: { siteId: string }) {
  const [state, setState] = useState<LoadState>({ kind: 'loading' });
  useTitle(state.kind === 'ready' ? state.loaded.site.name : state.kind === 'not-found' ? 'Site not found' : 'Site');

  const load = useCallback(async () => {
    setState({ kind: 'loading' });
    try {
      setState({ kind: 'ready', loaded: await fetchSite(siteId) });
    } catch (error) {
      setState(error instanceof ApiError && error.status === 404 ? { kind: 'not-found' } : { kind: 'failed', error });
    }
  }, [siteId]);

  useEffect(() => {
    void load();
  }, [load]);

  if (state.kind === 'loading') return <Loading label="Loading the site…" />;
  if (state.kind === 'not-found') {
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
  if (state.kind === 'failed') {
    return (
      <Alert kind="error" title="The site could not be loaded">
        <p>{errorMessage(state.error)}</p>
        <Button onClick={() => void load()}>Try again</Button>
      </Alert>
    );
  }
  return <SiteEditorForm siteId={siteId} initial={state.loaded} />;
}

function SiteEditorForm({ siteId, initial }: { siteId: string; initial: LoadedSite }) {
  const [saved, setSaved] = useState<Site>(initial.site);
  const [etag, setEtag] = useState<string | null>(initial.etag);
  const [draft, setDraft] = useState<SiteDraft>(() => draftOf(initial.site));
  const [serverErrors, setServerErrors] = useState<FieldError[]>([]);
  const [showClientErrors, setShowClientErrors] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<unknown>();
  const [justSaved, setJustSaved] = useState(false);
  const [conflict, setConflict] = useState(false);
  const [reloading, setReloading] = useState(false);
  const [reloadError, setReloadError] = useState<string>();
  const [discarding, setDiscarding] = useState(false);
  const [checking, setChecking] = useState(false);
  const [checkError, setCheckError] = useState<string>();
  const draftRef = useRef(draft);
  draftRef.current = draft;
  useTitle(saved.name);

  const changes = useMemo(() => changesOf(saved, draft), [saved, draft]);
  const dirty = hasChanges(changes);
  const localErrors = useMemo(() => clientErrors(changes), [changes]);
  // The form's own findings describe the current text; the server's describe what was sent.
  const errors = useMemo(() => [...(showClientErrors ? localErrors : []), ...serverErrors], [showClientErrors, localErrors, serverErrors]);
  const partnerUnsaved = changes.partner_settings !== undefined;

  useLeaveGuard(dirty);

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
    if (!dirty || saving || checking) return;
    if (localErrors.length > 0) {
      setShowClientErrors(true);
      focusFirstInvalid();
      return;
    }
    const sent = draft;
    setSaving(true);
    setSaveError(undefined);
    setServerErrors([]);
    try {
      const response = await api.put<{ site: Site }>(siteUrl(siteId), changes, { headers: etag === null ? {} : { 'if-match': etag } });
      const fresh = response.data.site;
      setSaved(fresh);
      setEtag(response.headers.get('etag'));
      setDraft(rebaseDraft(sent, draftRef.current, draftOf(fresh)));
      setShowClientErrors(false);
      setConflict(false);
      setJustSaved(true);
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) {
        // Someone saved in between. Keep every edit on screen; only the person decides to drop them.
        setConflict(true);
      } else {
        setSaveError(error);
        if (error instanceof ApiError) {
          setServerErrors(error.errors);
          focusFirstInvalid();
        }
      }
    } finally {
      setSaving(false);
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

  function replaceWith(loaded: LoadedSite) {
    setSaved(loaded.site);
    setEtag(loaded.etag);
    setDraft(draftOf(loaded.site));
    setServerErrors([]);
    setShowClientErrors(false);
    setSaveError(undefined);
    setConflict(false);
  }

  async function reloadTheirVersion() {
    setReloading(true);
    setReloadError(undefined);
    try {
      replaceWith(await fetchSite(siteId));
    } catch (error) {
      setReloadError(errorMessage(error));
    } finally {
      setReloading(false);
    }
  }

  async function checkConnection() {
    setChecking(true);
    setCheckError(undefined);
    try {
      const response = await api.post<{ site: Site }>(`${siteUrl(siteId)}/partner/check`);
      const fresh = response.data.site;
      // Recording the result moves the site's ETag. Adopt the new tag only when the stored
      // configuration is still the one this form was loaded from; if someone else saved in
      // between, keeping the old tag makes the next save report the conflict instead of
      // overwriting their change.
      if (sameConfiguration(saved, fresh)) setEtag(response.headers.get('etag'));
      const { last_status, last_error, last_checked_at } = fresh.partner_settings;
      setSaved((current) => ({ ...current, partner_settings: { ...current.partner_settings, last_status, last_error, last_checked_at } }));
    } catch (error) {
      setCheckError(errorMessage(error));
    } finally {
      setChecking(false);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    void save();
  }

  const summary = saveError !== undefined ? errorSummary(saveError) : showClientErrors && localErrors.length > 0 ? localErrors : undefined;

  return (
    <form className="site-editor" onSubmit={submit} noValidate aria-labelledby="site-editor-title">
      <header className="page-header">
        <div className="site-editor-heading">
          <Link to="/" className="back-link">
            ← All sites
          </Link>
          <h1 id="site-editor-title">
            <span className="swatch site-swatch-large" style={{ backgroundColor: saved.color }} aria-hidden="true" />
            {saved.name}
          </h1>
          <p>
            Created <time dateTime={saved.created_at} title={formatDateTime(saved.created_at)}>{formatRelative(saved.created_at)}</time> · updated{' '}
            <time dateTime={saved.updated_at} title={formatDateTime(saved.updated_at)}>
              {formatRelative(saved.updated_at)}
            </time>
          </p>
        </div>
      </header>

      {summary !== undefined && <SaveErrorSummary error={saveError} fieldErrors={summary} />}

      <section className="card" aria-labelledby="general-title">
        <div className="card-header">
          <div>
            <h2 id="general-title">General</h2>
            <p>How the site is named and coloured in the dashboard.</p>
          </div>
        </div>
        <div className="form-grid">
          <Field
            label="Name"
            value={draft.name}
            maxLength={NAME_MAX_LENGTH}
            required
            onChange={(event) => {
              const name = event.target.value;
              edit((current) => ({ ...current, name }), ['/name']);
            }}
            error={messageFor(errors, '/name')}
          />
          <ColorField label="Colour" value={draft.color} onChange={(color) => edit((current) => ({ ...current, color }), ['/color'])} error={messageFor(errors, '/color')} />
        </div>
      </section>

      <div className="settings-groups">
        {SETTINGS_GROUPS.map((group) => (
          <SettingsTextEditor
            key={group.field}
            title={group.title}
            description={group.description}
            value={draft[group.field]}
            onChange={(value) => editSettings(group.field, value)}
            maxBytes={SETTINGS_MAX_BYTES}
            error={messageFor(errors, `/${group.field}`)}
            changed={changes[group.field] !== undefined}
          />
        ))}
      </div>

      <section className="card" aria-labelledby="partner-title">
        <div className="card-header">
          <div>
            <h2 id="partner-title">Partner integration</h2>
            <p>Connect the site to the partner service over HTTP and MCP.</p>
          </div>
        </div>
        <PartnerCheck saved={saved.partner_settings} unsavedChanges={partnerUnsaved} busy={checking} error={checkError} onCheck={() => void checkConnection()} />
        <PartnerSettingsForm
          draft={draft.partner}
          onChange={editPartner}
          tokenConfigured={saved.partner_settings.access_token_configured}
          tokenChange={draft.accessToken}
          onTokenChange={editToken}
          errors={errors}
        />
      </section>

      <div className="save-bar" role="region" aria-label="Save changes">
        {conflict && (
          <div className="alert alert-warning save-conflict" role="alert">
            <strong className="alert-title">Someone else saved this site since you opened it</strong>
            <p>Your changes have not been saved and are still on screen. Saving now would overwrite their work, so it is blocked.</p>
            {reloadError !== undefined && <p className="field-error">{reloadError}</p>}
            <Button variant="danger" busy={reloading} onClick={() => void reloadTheirVersion()}>
              Reload their version (your changes will be lost)
            </Button>
          </div>
        )}
        <div className="save-bar-inner">
          <span className={`save-state ${dirty ? 'save-state-dirty' : ''}`} role="status">
            {saving ? 'Saving…' : dirty ? 'Unsaved changes' : justSaved ? 'Saved' : 'No changes'}
          </span>
          <div className="row">
            <Button variant="ghost" disabled={!dirty || saving} onClick={() => setDiscarding(true)}>
              Discard
            </Button>
            <Button type="submit" variant="primary" busy={saving} disabled={!dirty || conflict || checking} title="Save (Ctrl+S)">
              Save
            </Button>
          </div>
        </div>
      </div>

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
        <p>The form goes back to the saved version of {saved.name}.</p>
      </ConfirmDialog>
    </form>
  );
}

/** Field errors as the summary lists them: the server's, or the form's own when it refused. */
function errorSummary(error: unknown): FieldError[] {
  return error instanceof ApiError ? error.errors : [];
}

function SaveErrorSummary({ error, fieldErrors }: { error: unknown; fieldErrors: FieldError[] }) {
  const detail = error === undefined ? 'Fix the fields marked below, then save again.' : errorMessage(error);
  return (
    <Alert kind="error" title="The site was not saved">
      {fieldErrors.length === 0 ? (
        <p>{detail}</p>
      ) : (
        <>
          <p>{error === undefined ? detail : 'The server refused these fields; each is marked below.'}</p>
          <ul className="error-summary">
            {fieldErrors.map((fieldError) => (
              <li key={`${fieldError.path}:${fieldError.message}`}>
                <strong>{fieldLabel(fieldError.path)}</strong>: {fieldError.message}
              </li>
            ))}
          </ul>
        </>
      )}
    </Alert>
  );
}

/** After a refused save, take the keyboard to the first field that needs attention. */
function focusFirstInvalid() {
  window.requestAnimationFrame(() => {
    const field = document.querySelector<HTMLElement>('.site-editor [aria-invalid="true"]');
    field?.focus();
  });
}
