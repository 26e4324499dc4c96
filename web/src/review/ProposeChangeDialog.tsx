import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type Ref, type TextareaHTMLAttributes, useId } from 'react';
import { useForm } from 'react-hook-form';
import { CHANGE_REQUEST_DESCRIPTION_MAX_LENGTH, CHANGE_REQUEST_TITLE_MAX_LENGTH } from '@server/change-requests/contract';
import { type ChangeRequest, openChangeRequest } from '../api/changeRequests';
import { fetchSite, type LoadedSite } from '../api/sites';
import { ApiError, errorMessage } from '../api/errors';
import { proposalFieldPath } from '../changeRequests';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { Field, FieldErrorText } from '../components/Field';
import { ModalDialog } from '../components/ModalDialog';
import { asSentence } from '../format';
import { queryKeys } from '../queryKeys';
import { fieldLabel, sameConfiguration, type SiteChanges } from '../siteDraft';
import './review.css';

interface ProposeChangeDialogProps {
  open: boolean;
  siteId: string;
  siteName: string;
  /** The editor's unsaved changes: the proposal, made against the version the editor holds. */
  changes: SiteChanges;
  /** The version the editor holds (its site and ETag): a proposal is only sent while it is still the site's. */
  loaded: LoadedSite;
  onClose: () => void;
  onProposed: (request: ChangeRequest) => void;
  /** The site changed since the editor loaded it: nothing was sent, and the editor shows the choice. */
  onNewerVersion: (current: LoadedSite) => void;
}

/** Thrown when the site is no longer the version the editor's changes were made on. */
class NewerVersion extends Error {
  constructor(readonly current: LoadedSite) {
    super('The site changed since the editor loaded it.');
  }
}

interface Values {
  title: string;
  description: string;
}

/** What a proposal cannot carry: the partner access token is set on the site directly by someone allowed to. */
function tokenInProposal(changes: SiteChanges): boolean {
  return changes.partner_settings !== undefined && 'access_token' in changes.partner_settings;
}

/**
 * "Propose change": while the workspace requires review, the editor's changes go to a change
 * request with a title and a description instead of going live. The server checks the proposal
 * as a save (400 naming the field, 413 for sizes), and those answers are shown here in the form's words.
 */
export function ProposeChangeDialog({ open, siteId, siteName, changes, loaded, onClose, onProposed, onNewerVersion }: ProposeChangeDialogProps) {
  const queryClient = useQueryClient();
  const { register, handleSubmit, reset, formState } = useForm<Values>({ defaultValues: { title: '', description: '' } });
  const propose = useMutation({
    mutationFn: async (values: Values) => {
      // Proposed from the version the editor holds (If-Match): the editor's changes, made on an
      // older version, would quietly undo a newer one's in every setting both touched.
      const body = { title: values.title.trim(), ...(values.description.trim() === '' ? {} : { description: values.description }), changes };
      try {
        return await openChangeRequest(siteId, body, loaded.etag);
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 412)) throw error;
        const current = await fetchSite(siteId);
        if (!sameConfiguration(loaded.site, current.site)) throw new NewerVersion(current);
        // The version moved with the configuration unchanged (a rotated public key): propose from it.
        return openChangeRequest(siteId, body, current.etag);
      }
    },
    onSuccess: (request) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.changeRequests.all() });
      reset({ title: '', description: '' });
      onProposed(request);
    },
    onError: (error) => {
      if (error instanceof NewerVersion) onNewerVersion(error.current);
    },
  });
  const resetMutation = propose.reset;


  const serverError = propose.error instanceof ApiError ? propose.error : undefined;
  const titleError = formState.errors.title?.message ?? (serverError?.fieldMessage('title') === undefined ? undefined : asSentence(serverError.fieldMessage('title') ?? ''));
  const descriptionError = serverError?.fieldMessage('description');
  // The proposal's own fields the server refused (by their path in a PUT, or under /changes), named as the editor names them.
  const proposalErrors = (serverError?.errors ?? []).filter((error) => error.path !== '/title' && error.path !== '/description');
  const tokenBlocked = tokenInProposal(changes);
  const busy = propose.isPending;

  return (
    <ModalDialog
      open={open}
      title="Propose this change"
      className="propose-dialog"
      // What was typed stays when the dialog opens again (after settling a newer version); a proposal sent clears it.
      onOpen={resetMutation}
      onCancel={() => {
        if (!busy) onClose();
      }}
    >
      <form onSubmit={handleSubmit((values) => !tokenBlocked && propose.mutate(values))} noValidate>
        <p className="muted">Changes to {siteName} are reviewed before they go live. Say what the change is for; an admin or owner approves it and applies it.</p>
        {tokenBlocked && (
          <Alert kind="warning" title="The access token cannot be proposed">
            <p>A partner access token is a secret: an owner sets it on the site directly. Keep the saved token under Integration, then propose the rest.</p>
          </Alert>
        )}
        {propose.error !== null && !(propose.error instanceof NewerVersion) && titleError === undefined && descriptionError === undefined && (
          <Alert kind="error" title="The change was not proposed">
            {proposalErrors.length === 0 ? (
              <p>{errorMessage(propose.error)}</p>
            ) : (
              <>
                <p>These settings are not valid yet; fix them in the editor, then propose again:</p>
                <ul className="error-summary">
                  {proposalErrors.map((error) => (
                    <li key={`${error.path}:${error.message}`}>
                      <strong>{fieldLabel(proposalFieldPath(error.path))}</strong>: {error.message}
                    </li>
                  ))}
                </ul>
              </>
            )}
          </Alert>
        )}
        <Field
          label="Title"
          maxLength={CHANGE_REQUEST_TITLE_MAX_LENGTH}
          required
          autoFocus
          autoComplete="off"
          error={titleError}
          {...register('title', { validate: (value) => value.trim() !== '' || 'Enter a title.', onChange: () => propose.reset() })}
        />
        <DescriptionField error={descriptionError} {...register('description', { onChange: () => propose.reset() })} />
        <div className="dialog-actions">
          <Button onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" busy={busy} disabled={tokenBlocked}>
            Propose change
          </Button>
        </div>
      </form>
    </ModalDialog>
  );
}

type TextAreaProps = TextareaHTMLAttributes<HTMLTextAreaElement> & { error?: string | undefined; label?: string; hint?: string; ref?: Ref<HTMLTextAreaElement> };

/** A labelled text area for prose (a description, a comment), with its hint and error tied to it. */
export function DescriptionField({ error, label = 'Description (optional)', hint = 'What changes, and why. Reviewers read it beside the changes.', ref, ...area }: TextAreaProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} ref={ref} className="prose-input" rows={4} maxLength={CHANGE_REQUEST_DESCRIPTION_MAX_LENGTH} aria-invalid={error !== undefined} aria-describedby={`${id}-hint${error === undefined ? '' : ` ${id}-error`}`} {...area} />
      <p className="hint" id={`${id}-hint`}>
        {hint}
      </p>
      <FieldErrorText id={`${id}-error`} error={error === undefined ? undefined : asSentence(error)} />
    </div>
  );
}
