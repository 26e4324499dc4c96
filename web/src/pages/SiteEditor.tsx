import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiError, errorMessage } from '../api/errors';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { ColorField } from '../components/ColorField';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Field } from '../components/Field';
import { FirstRunChecklist } from '../editor/FirstRunChecklist';
import { Loading } from '../components/Loading';
import { isTwoFactorRequired, TwoFactorRequiredNotice } from '../components/TwoFactorRequiredNotice';
import { ConflictPanel } from '../editor/ConflictPanel';
import { DangerZone } from '../editor/DangerZone';
import { HistorySection } from '../editor/HistorySection';
import { InstallOffer } from '../editor/InstallOffer';
import { InstallSection } from '../editor/InstallSection';
import { UsageSection } from '../editor/UsageSection';
import { IntegrationSection } from '../editor/IntegrationSection';
import { EditorHeader, SaveBar, SaveErrorSummary, SectionHeading, SectionNav } from '../editor/EditorParts';
import { type EditorSection, findSection, type SectionId, sectionOfPath } from '../editor/sections';
import { useSiteEditor } from '../editor/useSiteEditor';
import { type SiteVersionEvent, useNewerVersion, versionOfEtag } from '../editor/useSiteEvents';
import { sectionPath } from '../editor/sections';
import { queryKeys } from '../queryKeys';
import { useSession } from '../session';
import { ProposeChangeDialog } from '../review/ProposeChangeDialog';
import { SiteChangeRequestsSection } from '../review/SiteChangeRequests';
import { changeRequestPath } from '../changeRequests';
import { SettingsGroupCard } from '../editor/SettingsGroupCard';
import { WidgetPreview } from '../editor/WidgetPreview';
import '../editor/editor.css';
import { Link, useLeaveGuard, useLocationState } from '../router';
import { messageFor } from '../siteDraft';
import { NAME_MAX_LENGTH } from '@server/sites/contract';
import { useTitle } from '../useTitle';
import { roleWithArticle, siteAccess, type SiteAccess } from '../workspaceAccess';
import { type Workspace } from '../workspaces';
import type { LoadedSite } from '../api/sites';
import { useSite, useWorkspaces } from '../queries';

/** The site editor at /sites/:id (General) and /sites/:id/:section. */
export function SiteEditorPage({ siteId, section }: { siteId: string; section?: string | undefined }) {
  const query = useSite(siteId);
  const workspaces = useWorkspaces();
  const notFound = query.error instanceof ApiError && query.error.status === 404;
  useTitle(query.data !== undefined ? query.data.site.name : notFound ? 'Site not found' : 'Site');

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
    if (isTwoFactorRequired(query.error)) return <TwoFactorRequiredNotice />;
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
    />
  );
}

/** "Olivia saved version 7 — see changes": the history shows what they changed; this editor's draft stays as it is. */
function NewerVersionNotice({ siteId, newer }: { siteId: string; newer: SiteVersionEvent }) {
  return (
    <Alert kind="info">
      <p>
        {newer.actor_name ?? 'Someone'} saved version {newer.version} — <Link to={sectionPath(siteId, 'history')}>see changes</Link>
      </p>
    </Alert>
  );
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
}

function SiteEditorForm({ siteId, loaded, workspace, access, section, unknownSection }: SiteEditorFormProps) {
  const readOnly = !access.edit;
  const sectionId: SectionId = section?.id ?? 'general';
  // Review required: editors and admins propose; owners save directly, recorded as bypassing review.
  const reviewRequired = workspace?.review.required === true;
  const editor = useSiteEditor({ siteId, loaded, readOnly, sectionId, propose: reviewRequired && !readOnly && workspace.role !== 'owner' });
  const bypassNote = reviewRequired && workspace.role === 'owner' ? `${workspace.name} requires review: as an owner, your save goes live at once and is recorded as bypassing review.` : undefined;
  const { form, saved, draft, changes, dirty, errors } = editor;
  const [discarding, setDiscarding] = useState(false);
  // Sites.tsx arrives here with this state right after creating the site: the next step is offered.
  const justCreated = (useLocationState() as { created?: unknown } | null)?.created === true;
  const partnerUnsaved = changes.partner_settings !== undefined;
  const changedSections = new Set<SectionId>(Object.keys(changes).map((key) => sectionOfPath(`/${key}`)));
  const summaryErrors = editor.saveError !== undefined ? (editor.saveError instanceof ApiError ? editor.saveError.errors : []) : editor.clientRefusal;
  // Someone else's save, told at once rather than at this editor's next save (412).
  const newer = useNewerVersion(siteId, versionOfEtag(editor.etag), useSession().user?.id);
  const queryClient = useQueryClient();
  useEffect(() => {
    if (newer !== undefined) void queryClient.invalidateQueries({ queryKey: queryKeys.sites.versions(siteId) });
  }, [newer, queryClient, siteId]);

  return (
    <>
      <form className="site-editor" onSubmit={(event) => void editor.submit(event)} noValidate aria-labelledby="site-editor-title">
        <LeaveGuard key={sectionId} active={dirty} />
        <EditorHeader saved={saved} workspace={workspace} />

        {readOnly && workspace !== undefined && (
          <Alert kind="info" title="View only">
            <p>
              You are {roleWithArticle(workspace.role)} in {workspace.name}: ask an admin for editor access.
            </p>
          </Alert>
        )}

        {editor.proposed !== undefined && (
          <Alert kind="success" title="Your change was proposed">
            <p>
              It goes live once it is approved and applied. The editor shows the live site again.{' '}
              <Link to={changeRequestPath(siteId, editor.proposed.id)}>Open “{editor.proposed.title}”</Link>
            </p>
          </Alert>
        )}

        {newer !== undefined && !editor.conflict && <NewerVersionNotice siteId={siteId} newer={newer} />}

        {editor.conflict && <ConflictPanel editor={editor} />}

        {summaryErrors !== undefined && <SaveErrorSummary error={editor.saveError} fieldErrors={summaryErrors} siteId={siteId} />}

        <div className="editor-layout">
          <SectionNav siteId={siteId} sectionId={sectionId} known={section !== undefined} errors={errors} changedSections={changedSections} />

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
                {!readOnly && <FirstRunChecklist site={saved} />}
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
                      maxLength={NAME_MAX_LENGTH}
                      required
                      {...form.register('name')}
                      hint={
                        <>
                          Spaces at the start and end are removed when you save.{' '}
                          <span className={draft.name.length >= NAME_MAX_LENGTH ? 'name-count name-count-full' : 'name-count'}>
                            {draft.name.length} of {NAME_MAX_LENGTH} characters
                          </span>
                        </>
                      }
                      error={messageFor(errors, '/name')}
                    />
                    <ColorField label="Colour" value={draft.color} onChange={(color) => editor.edit({ color })} error={messageFor(errors, '/color')} />
                  </fieldset>
                </section>
                {access.delete && <DangerZone siteId={siteId} name={saved.name} />}
              </>
            )}

            {section !== undefined && section.groups.length > 0 && (
              <div className={section.id === 'widget' || section.id === 'branding' ? 'editor-with-preview' : undefined}>
                <div className="settings-groups">
                  {section.groups.map((field) => (
                    <SettingsGroupCard key={field} field={field} text={draft[field]} savedText={saved[field]} onChange={(value) => editor.editSettings(field, value)} errors={errors} readOnly={readOnly} />
                  ))}
                </div>
                {(section.id === 'widget' || section.id === 'branding') && (
                  <aside className="editor-preview" aria-label="Widget preview">
                    <WidgetPreview draft={draft} />
                  </aside>
                )}
              </div>
            )}

            {sectionId === 'install' && section !== undefined && <InstallSection siteId={siteId} name={saved.name} canRotate={access.edit} onRotated={editor.adoptRotatedKey} />}

            {sectionId === 'usage' && section !== undefined && <UsageSection siteId={siteId} />}

            {sectionId === 'change-requests' && section !== undefined && <SiteChangeRequestsSection siteId={siteId} workspace={workspace} />}

            {sectionId === 'history' && section !== undefined && (
              <HistorySection siteId={siteId} etag={editor.etag} canRestore={access.edit} dirty={dirty} onRestored={(site, tag) => editor.startOver({ site, etag: tag })} />
            )}

            {sectionId === 'integration' && section !== undefined && (
              <IntegrationSection
                siteId={siteId}
                saved={saved}
                draft={draft}
                readOnly={readOnly}
                canCheck={access.check}
                partnerUnsaved={partnerUnsaved}
                checkBusy={editor.checking.isPending}
                checkError={editor.checkError === undefined ? undefined : errorMessage(editor.checkError)}
                checkAnnouncement={editor.checkDone}
                onCheck={() => editor.checking.mutate()}
                onPartnerChange={editor.editPartner}
                onTokenChange={editor.editToken}
                errors={errors}
                onTestFieldErrors={editor.showTestFieldErrors}
                lastSavedToken={editor.saving.isSuccess ? (editor.saving.variables.changes.partner_settings?.access_token ?? undefined) : undefined}
              />
            )}
          </div>
        </div>

        {!readOnly && <SaveBar editor={editor} onDiscard={() => setDiscarding(true)} bypassNote={bypassNote} />}

        <ConfirmDialog
          open={discarding}
          title="Discard your changes?"
          confirmLabel="Discard changes"
          danger
          onCancel={() => setDiscarding(false)}
          onConfirm={() => {
            setDiscarding(false);
            editor.discard();
          }}
        >
          <p>Every section goes back to the saved version of {saved.name}.</p>
        </ConfirmDialog>
      </form>
      {/* Outside the editor's form: a form inside a form is not allowed, and its submit would reach the editor's. */}
      {editor.propose && (
        <ProposeChangeDialog
          open={editor.proposing}
          siteId={siteId}
          siteName={saved.name}
          changes={changes}
          loaded={loaded}
          onClose={editor.cancelProposal}
          onProposed={editor.afterProposal}
          onNewerVersion={editor.proposalFoundNewer}
        />
      )}
    </>
  );
}
