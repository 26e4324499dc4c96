// The site editor's state: the draft in react-hook-form, what differs from the saved site, the
// errors to show, and the save, check and reload requests as TanStack mutations (their pending,
// error and success states are the editor's busy, error and "Saved" states).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { type FieldNamesMarkedBoolean, useForm } from 'react-hook-form';
import type { ConflictResolution } from '@server/change-requests/contract';
import { SITE_ERRORS } from '@server/sites/errors';
import type { SettingsField } from '@server/sites/contract';
import type { ChangeRequest } from '../api/changeRequests';
import { ApiError, type FieldError } from '../api/errors';
import { checkPartnerConnection, fetchSite, type LoadedSite, updateSite } from '../api/sites';
import type { PartnerDraft, Site } from '../api/types';
import { partnerChecksQuery, siteQuery, usePartnerChecks } from '../queries';
import { queryKeys } from '../queryKeys';
import { allSettled, type ConflictChoices, editorConflicts, rebasedDraft } from '../changeRequests';
import { changesOf, clientErrors, draftOf, hasChanges, rebaseDraft, sameConfiguration, type SiteChanges, type SiteDraft, type TokenChange } from '../siteDraft';
import { checkAnnouncement } from './partnerCheckText';
import { focusFirstInvalid } from './editorNavigation';
import { type SectionId, sectionPath } from './sections';
import { useToasts } from '../toasts';

/** Whether the person has edited the field an error path names since the errors were reported. */
function editedSince(dirty: Partial<Readonly<FieldNamesMarkedBoolean<SiteDraft>>>, path: string): boolean {
  const [, top, inner] = path.split('/');
  if (top === 'partner_settings') {
    if (inner === 'access_token') return dirty.accessToken !== undefined;
    const partner = dirty.partner as Record<string, unknown> | undefined;
    return inner !== undefined && partner?.[inner] !== undefined;
  }
  return top !== undefined && (dirty as Record<string, unknown>)[top] !== undefined;
}

function isConflict(error: unknown): boolean {
  return error instanceof ApiError && error.status === 412;
}

interface SiteEditorOptions {
  siteId: string;
  loaded: LoadedSite;
  readOnly: boolean;
  sectionId: SectionId;
  /** The workspace requires review and the person is not an owner: Save becomes "Propose change". */
  propose: boolean;
}

export function useSiteEditor({ siteId, loaded, readOnly, sectionId, propose }: SiteEditorOptions) {
  const queryClient = useQueryClient();
  const toasts = useToasts();
  const saved = loaded.site;
  const form = useForm<SiteDraft>({ defaultValues: draftOf(saved) });
  const draft = form.watch();
  const changes = changesOf(saved, draft);
  const dirty = hasChanges(changes);
  const localErrors = clientErrors(changes);
  // The form's own findings once a save was tried; they describe the text as it is now.
  const showClientErrors = form.formState.submitCount > 0;
  // A test of the unsaved partner settings refused these fields (the panel's own request).
  const [testErrors, setTestErrors] = useState<FieldError[]>([]);
  // Proposing: the dialog asking for a title is open; then the request the changes went to.
  const [proposing, setProposing] = useState(false);
  const [proposed, setProposed] = useState<ChangeRequest>();

  const setLoaded = (next: LoadedSite) => queryClient.setQueryData(siteQuery(siteId).queryKey, next);

  const saving = useMutation({
    mutationFn: (sent: { changes: SiteChanges; etag: string | null; draft: SiteDraft }) => updateSite(siteId, sent.changes, sent.etag),
    onSuccess: (stored, sent) => {
      setLoaded(stored);
      void queryClient.invalidateQueries({ queryKey: queryKeys.sites.lists() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.sites.versions(siteId) });
      // What was typed while the request ran stays; what was sent takes the server's value.
      form.reset(rebaseDraft(sent.draft, form.getValues(), draftOf(stored.site)));
      setTestErrors([]);
      toasts.show({ message: 'Saved.', link: { label: 'See the change in History', to: sectionPath(siteId, 'history') } });
    },
    onError: (error) => {
      // The errors describe what was sent: "edited since" counts from now. Every edit stays on screen.
      form.reset(form.getValues(), { keepSubmitCount: true });
      // Their version is fetched at once, so the person can choose path by path what to keep.
      if (isConflict(error)) fetchingTheirs.mutate();
      if (error instanceof ApiError && !isConflict(error)) focusFirstInvalid(siteId, sectionId, error.errors);
      // The workspace began requiring review while this editor was open: Save becomes Propose.
      if (error instanceof ApiError && error.code === SITE_ERRORS.REVIEW_REQUIRED) void queryClient.invalidateQueries({ queryKey: queryKeys.workspaces.list() });
    },
  });
  const checking = useMutation({
    mutationFn: () => checkPartnerConnection(siteId),
    onSuccess: async (checked) => {
      const { last_status, last_error, last_checked_at } = checked.site.partner_settings;
      // Recording the result moves the site's ETag. Adopt the new tag only when the stored
      // configuration is still the one this form was loaded from; if someone else saved in
      // between, keeping the old tag makes the next save report the conflict instead of
      // overwriting their change.
      const current = queryClient.getQueryData(siteQuery(siteId).queryKey) ?? loaded;
      setLoaded({
        site: { ...current.site, partner_settings: { ...current.site.partner_settings, last_status, last_error, last_checked_at } },
        etag: sameConfiguration(current.site, checked.site) ? checked.etag : current.etag,
      });
      // The check was recorded: Recent checks (and the details of the last check) load it, and
      // the check counts as finished once they have.
      await queryClient.invalidateQueries({ queryKey: partnerChecksQuery(siteId).queryKey });
    },
  });
  const reloading = useMutation({ mutationFn: () => fetchSite(siteId), onSuccess: (next) => startOver(next) });
  // Someone else saved meanwhile (412): their version, and which side each path both changed keeps.
  const [theirs, setTheirs] = useState<LoadedSite>();
  const [choices, setChoices] = useState<ConflictChoices>({});
  // A proposal found the site changed since the editor loaded it (412 to its If-Match).
  const [staleProposal, setStaleProposal] = useState(false);
  const fetchingTheirs = useMutation({
    mutationFn: () => fetchSite(siteId),
    onSuccess: (next) => {
      setTheirs(next);
      setChoices({});
    },
  });

  /** A rotation moved the ETag: the new tag is adopted only if no one saved in between (as after a check). */
  function adoptRotatedKey(rotated: Site, etag: string | null) {
    const current = queryClient.getQueryData(siteQuery(siteId).queryKey) ?? loaded;
    setLoaded({ site: { ...current.site, public_key: rotated.public_key }, etag: sameConfiguration(current.site, rotated) ? etag : current.etag });
  }
  const checks = usePartnerChecks(siteId);
  const newestCheck = checks.data?.[0];

  const conflict = isConflict(saving.error) || staleProposal;
  const conflicts = conflict && theirs !== undefined ? editorConflicts(saved, theirs.site, draft) : [];
  const saveError = saving.error !== null && !conflict ? saving.error : undefined;
  const reported = [...(saveError instanceof ApiError ? saveError.errors : []), ...testErrors].filter((error) => !editedSince(form.formState.dirtyFields, error.path));
  const errors = [...(showClientErrors ? localErrors : []), ...reported];

  /** Sets fields of the draft, as the person typed them. */
  function edit(values: Partial<SiteDraft>) {
    for (const [key, value] of Object.entries(values) as Array<[keyof SiteDraft, SiteDraft[keyof SiteDraft]]>) form.setValue(key, value, { shouldDirty: true });
    // A new edit after a save: the bar says "Unsaved changes", no longer "Saved".
    if (saving.isSuccess) saving.reset();
  }

  const editPartner = (patch: Partial<PartnerDraft>) => edit({ partner: { ...form.getValues('partner'), ...patch } });
  const editToken = (accessToken: TokenChange) => edit({ accessToken });
  const editSettings = (field: SettingsField, value: string) => edit({ [field]: value });

  function save() {
    if (readOnly || !dirty || saving.isPending || checking.isPending || conflict) return;
    if (localErrors.length > 0) {
      focusFirstInvalid(siteId, sectionId, localErrors);
      return;
    }
    if (propose) {
      setProposed(undefined);
      setProposing(true);
      return;
    }
    saving.mutate({ changes, etag: loaded.etag, draft: form.getValues() });
  }

  /** The changes went to a change request: the form goes back to the live site, and the request is offered. */
  function afterProposal(request: ChangeRequest) {
    setProposing(false);
    setProposed(request);
    startOver(loaded);
  }
  const submit = form.handleSubmit(save);

  const submitRef = useRef(submit);
  submitRef.current = submit;
  // Ctrl+S / Cmd+S saves instead of opening the browser's "save page" dialog.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 's') {
        event.preventDefault();
        void submitRef.current();
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  /** The editor afresh on a version of the site: after a restore, a reload or a discard. */
  function startOver(next: LoadedSite) {
    setLoaded(next);
    form.reset(draftOf(next.site));
    saving.reset();
    setTestErrors([]);
    setTheirs(undefined);
    setStaleProposal(false);
  }

  /** The proposal was not sent: the site changed since the editor loaded it. The same choice as after a 412 follows. */
  function proposalFoundNewer(next: LoadedSite) {
    setProposing(false);
    setTheirs(next);
    setChoices({});
    setStaleProposal(true);
  }

  /**
   * After a 412 (or a proposal that found a newer version): the draft moves onto their version (their changes stay, mine are laid over them,
   * each path both changed as chosen) and is saved against it. With nothing of mine left, the
   * editor simply shows their version. A proposal is then offered again instead of a save.
   */
  function saveOverTheirs() {
    if (theirs === undefined || !allSettled(conflicts, choices)) return;
    const resolved = rebasedDraft(saved, theirs.site, form.getValues(), choices);
    const resolvedChanges = changesOf(theirs.site, resolved);
    setTheirs(undefined);
    setStaleProposal(false);
    setLoaded(theirs);
    saving.reset();
    form.reset(resolved);
    if (!hasChanges(resolvedChanges)) {
      toasts.show({ message: 'Nothing of yours was left to save: the editor shows their version.' });
      return;
    }
    // Proposing: the dialog opens again on the rebased draft, its title and description kept.
    if (propose) setProposing(true);
    else saving.mutate({ changes: resolvedChanges, etag: theirs.etag, draft: resolved });
  }

  /** A test of the unsaved settings was refused for these fields (or, with none, accepted them all). */
  function showTestFieldErrors(found: FieldError[]) {
    form.reset(form.getValues(), { keepSubmitCount: true });
    setTestErrors(found);
    if (found.length > 0) focusFirstInvalid(siteId, sectionId, found);
  }

  const checkDone = checking.isSuccess ? (newestCheck === undefined ? 'Check finished.' : `Check finished. ${checkAnnouncement(newestCheck)}`) : '';

  return {
    form,
    saved,
    etag: loaded.etag,
    draft,
    changes,
    dirty,
    errors,
    /** The form refused to send: its own findings, listed. */
    clientRefusal: showClientErrors && localErrors.length > 0 ? localErrors : undefined,
    saving,
    saveError,
    conflict,
    /** After a 412: their version once fetched, the paths both sides changed, and the choices made. */
    theirs: conflict ? theirs : undefined,
    fetchingTheirs,
    conflicts,
    choices,
    choose: (path: string, choice: ConflictResolution) => setChoices({ ...choices, [path]: choice }),
    saveOverTheirs,
    justSaved: saving.isSuccess && !dirty,
    checking,
    checkError: checking.error ?? undefined,
    checkDone,
    reloading,
    edit,
    editPartner,
    editToken,
    editSettings,
    submit,
    startOver,
    adoptRotatedKey,
    discard: () => startOver(loaded),
    propose,
    proposing,
    proposed,
    cancelProposal: () => setProposing(false),
    afterProposal,
    proposalFoundNewer,
    showTestFieldErrors,
  };
}

export type SiteEditorState = ReturnType<typeof useSiteEditor>;
