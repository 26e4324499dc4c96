import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { WORKSPACE_ROLES } from '@server/memberships/contract';
import { EMAIL_MAX_LENGTH } from '@server/users/contract';
import { ApiError, errorMessage } from '../api/errors';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { Field } from '../components/Field';
import { EMAIL_SHAPE } from '../components/formRules';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { asSentence, formatDateTime, formatRelative } from '../format';
import { can, ROLE_LABELS, roleWithArticle, type WorkspaceRole } from '../workspaceAccess';
import { type Invitation, type Workspace } from '../workspaces';
import { sendInvitation, withdrawInvitation } from '../api/workspaces';
import { invitationsQuery, useInvitations } from '../queries';

interface InviteForm {
  email: string;
  role: WorkspaceRole;
}

/** The roles the caller may invite with: owners are made only by owners. */
function invitableRoles(callerRole: WorkspaceRole): WorkspaceRole[] {
  return WORKSPACE_ROLES.filter((role) => role !== 'owner' || can(callerRole, 'owner.grant'));
}

/**
 * Settings > Workspaces > one workspace, for admins: invite an address with a role, see who has
 * not answered yet, send an invitation again (a new link replaces the old one) or withdraw it.
 */
export function InvitationsSection({ workspace }: { workspace: Workspace }) {
  const queryClient = useQueryClient();
  const key = invitationsQuery(workspace.id).queryKey;
  const invitations = useInvitations(workspace.id);
  const [outcome, setOutcome] = useState<{ kind: 'success' | 'error'; text: string }>();
  const roleId = useId();
  const roles = invitableRoles(workspace.role);
  const { register, handleSubmit, reset, formState } = useForm<InviteForm>({ defaultValues: { email: '', role: 'editor' } });

  // Inviting an address that has a pending invitation replaces it: the list shows one row per address.
  const replaceInList = (saved: Invitation) => queryClient.setQueryData(key, (current) => [saved, ...(current ?? []).filter((each) => each.email !== saved.email)]);

  const invite = useMutation({
    mutationFn: (body: InviteForm) => sendInvitation(workspace.id, body),
    onSuccess: (saved) => {
      replaceInList(saved);
      reset({ email: '', role: saved.role });
      setOutcome({ kind: 'success', text: `Invitation sent to ${saved.email}. The link works for 7 days.` });
    },
  });
  const resend = useMutation({
    mutationFn: (invitation: Invitation) => sendInvitation(workspace.id, { email: invitation.email, role: invitation.role }),
    onSuccess: (saved) => {
      replaceInList(saved);
      setOutcome({ kind: 'success', text: `A new invitation was sent to ${saved.email}; the earlier link no longer works.` });
    },
    onError: (error, invitation) => setOutcome({ kind: 'error', text: `No new invitation was sent to ${invitation.email}. ${errorMessage(error)}` }),
  });
  const withdraw = useMutation({
    mutationFn: (invitation: Invitation) => withdrawInvitation(workspace.id, invitation.id),
    onSuccess: (_answer, invitation) => {
      queryClient.setQueryData(key, (current) => current?.filter((each) => each.id !== invitation.id));
      setOutcome({ kind: 'success', text: `The invitation to ${invitation.email} was withdrawn; its link no longer works.` });
    },
    onError: (error, invitation) => {
      setOutcome({ kind: 'error', text: `The invitation to ${invitation.email} still stands. ${errorMessage(error)}` });
      void invitations.refetch();
    },
  });

  const serverEmailError = invite.error instanceof ApiError ? invite.error.fieldMessage('email') : undefined;
  const emailError = formState.errors.email?.message ?? (serverEmailError === undefined ? undefined : asSentence(serverEmailError));
  const busyRow = (invitation: Invitation) => (resend.isPending && resend.variables.id === invitation.id) || (withdraw.isPending && withdraw.variables.id === invitation.id);

  return (
    <section className="card" aria-labelledby="workspace-invitations-title">
      <div className="card-header">
        <div>
          <h2 id="workspace-invitations-title">Invitations</h2>
          <p>Invite a colleague by e-mail. They join with the role you choose once they accept, signed in with that address (or after signing up with it).</p>
        </div>
      </div>
      {invite.error !== null && serverEmailError === undefined && (
        <Alert kind="error" title="The invitation was not sent">
          <p>{errorMessage(invite.error)}</p>
        </Alert>
      )}
      <form
        onSubmit={handleSubmit((values) => {
          setOutcome(undefined);
          invite.mutate({ email: values.email.trim(), role: values.role });
        })}
        noValidate
        className="workspace-create invitation-form"
      >
        <Field
          label="E-mail address"
          type="email"
          autoComplete="off"
          maxLength={EMAIL_MAX_LENGTH}
          error={emailError}
          {...register('email', { validate: (value) => EMAIL_SHAPE.test(value.trim()) || 'Enter the address to invite, like name@example.com.', onChange: () => invite.reset() })}
        />
        <div className="field member-role">
          <label htmlFor={roleId}>Role</label>
          <select id={roleId} {...register('role')}>
            {roles.map((role) => (
              <option key={role} value={role}>
                {ROLE_LABELS[role]}
              </option>
            ))}
          </select>
        </div>
        <Button type="submit" variant="primary" busy={invite.isPending}>
          Send invitation
        </Button>
      </form>
      {outcome !== undefined && <Alert kind={outcome.kind}>{outcome.text}</Alert>}
      <h3 className="invitations-pending-title">Waiting for an answer</h3>
      {invitations.isError ? (
        <LoadFailed title="The invitations could not be loaded" message={errorMessage(invitations.error)} error={invitations.error} onRetry={() => void invitations.refetch()} />
      ) : invitations.data === undefined ? (
        <Loading label="Loading invitations…" />
      ) : invitations.data.length === 0 ? (
        <p className="muted">No invitation is waiting for an answer.</p>
      ) : (
        <ul className="list member-list" aria-label="Pending invitations">
          {invitations.data.map((invitation) => (
            <li key={invitation.id} className="member-row">
              <div className="list-main">
                <strong>{invitation.email}</strong>
                <span className="muted small">
                  Invited as {roleWithArticle(invitation.role)} · link expires{' '}
                  <time dateTime={invitation.expires_at} title={formatDateTime(invitation.expires_at)}>
                    {formatRelative(invitation.expires_at)}
                  </time>
                </span>
              </div>
              {roles.includes(invitation.role) && (
                <Button
                  busy={resend.isPending && resend.variables.id === invitation.id}
                  disabled={busyRow(invitation)}
                  onClick={() => {
                    setOutcome(undefined);
                    resend.mutate(invitation);
                  }}
                  aria-label={`Send again to ${invitation.email}`}
                >
                  Send again
                </Button>
              )}
              <Button
                className="button-danger-outline"
                busy={withdraw.isPending && withdraw.variables.id === invitation.id}
                disabled={busyRow(invitation)}
                onClick={() => {
                  setOutcome(undefined);
                  withdraw.mutate(invitation);
                }}
                aria-label={`Withdraw the invitation to ${invitation.email}`}
              >
                Withdraw
              </Button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
