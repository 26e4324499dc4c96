import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { REVIEW_APPROVALS_MAX, REVIEW_APPROVALS_MIN, WORKSPACE_NAME_MAX_LENGTH } from '@server/workspaces/contract';
import { WORKSPACE_ERRORS } from '@server/memberships/errors';
import { ApiError, errorMessage } from '../api/errors';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Field } from '../components/Field';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { asSentence, formatDateTime, formatRelative } from '../format';
import { Link, navigate } from '../router';
import { useSession } from '../session';
import { useToasts } from '../toasts';
import { useTitle } from '../useTitle';
import { InvitationsSection } from './WorkspaceInvitations';
import { can, canRemoveMember, ROLE_LABELS, rolesOffered, type WorkspaceRole } from '../workspaceAccess';
import { type Member, type Workspace, workspacePath, type WorkspacesNotice } from '../workspaces';
import { changeMemberRole, deleteWorkspace, removeMember, renameWorkspace, setWorkspaceReviewPolicy, setWorkspaceTwoFactorRequirement } from '../api/workspaces';
import { membersQuery, useMembers, useWorkspaces, workspacesQuery } from '../queries';
import { queryKeys } from '../queryKeys';

/** Settings > Workspaces > one workspace: its name, its members and their roles, leaving and deleting it. */
export function WorkspaceDetailPage({ workspaceId }: { workspaceId: string }) {
  const workspaces = useWorkspaces();
  const workspace = workspaces.data?.find((each) => each.id === workspaceId);
  useTitle(workspace?.name ?? 'Workspace');

  if (workspaces.isError) return <LoadFailed title="The workspace could not be loaded" message={errorMessage(workspaces.error)} onRetry={() => void workspaces.refetch()} />;
  if (workspaces.data === undefined) return <Loading label="Loading the workspace…" />;
  if (workspace === undefined) {
    return (
      <section className="empty">
        <h1>Workspace not found</h1>
        <p>You are not a member of a workspace at this address. It may have been deleted, or you were removed from it.</p>
        <Link to="/settings/workspaces" className="button button-primary">
          Back to your workspaces
        </Link>
      </section>
    );
  }
  return <WorkspaceScreen workspace={workspace} />;
}

/** Back to the list, which says what happened; the list and every site list load again. */
function leaveScreen(notice: string) {
  const state: WorkspacesNotice = { notice };
  navigate('/settings/workspaces', { replace: true, force: true, state });
}

function WorkspaceScreen({ workspace }: { workspace: Workspace }) {
  const queryClient = useQueryClient();
  const { user } = useSession();
  const [leaving, setLeaving] = useState(false);
  const [deleting, setDeleting] = useState(false);
  // The last owner cannot leave (the server refuses it too): said before any confirmation.
  const members = useMembers(workspace.id);
  const soleOwner = workspace.role === 'owner' && members.data !== undefined && members.data.filter((member) => member.role === 'owner').length === 1;

  // The workspace's sites and the person's role in it are gone or changed everywhere on screen.
  async function refreshEverywhere() {
    await Promise.all([queryClient.invalidateQueries({ queryKey: queryKeys.workspaces.all() }), queryClient.invalidateQueries({ queryKey: queryKeys.sites.all() })]);
  }

  const leave = useMutation({
    mutationFn: () => removeMember(workspace.id, user?.id ?? ''),
    onSuccess: async () => {
      setLeaving(false);
      leaveScreen(`You left ${workspace.name}.`);
      await refreshEverywhere();
    },
  });
  const deletion = useMutation({
    mutationFn: () => deleteWorkspace(workspace.id),
    onSuccess: async () => {
      setDeleting(false);
      leaveScreen(`${workspace.name} and its sites were deleted.`);
      await refreshEverywhere();
    },
  });

  return (
    <>
      <div className="page-header">
        <div className="workspace-heading">
          <Link to="/settings/workspaces" className="back-link">
            ← All workspaces
          </Link>
          <h1>{workspace.name}</h1>
          <p>
            Your role: {ROLE_LABELS[workspace.role]}
            {workspace.personal && ' · your personal workspace'}
            {workspace.require_two_factor && ' · two-factor authentication required of every member'}
            {can(workspace.role, 'audit.read') && (
              <>
                {' · '}
                <Link to={`${workspacePath(workspace.id)}/audit-log`}>Audit log</Link>
              </>
            )}
            {can(workspace.role, 'webhook.manage') && (
              <>
                {' · '}
                <Link to={`${workspacePath(workspace.id)}/webhooks`}>Webhooks</Link>
              </>
            )}
          </p>
        </div>
      </div>

      {can(workspace.role, 'workspace.update') && <RenameSection workspace={workspace} />}
      {can(workspace.role, 'workspace.update') && <TwoFactorRequirementSection workspace={workspace} />}
      <ReviewPolicySection workspace={workspace} />

      <MembersSection workspace={workspace} currentUserId={user?.id} />
      {can(workspace.role, 'invitation.manage') && <InvitationsSection workspace={workspace} />}

      <section className="card" aria-labelledby="workspace-leave-title">
        <div className="card-header">
          <div>
            <h2 id="workspace-leave-title">Leave workspace</h2>
            <p>
              {workspace.personal
                ? 'Your personal workspace stays yours: it cannot be left or deleted.'
                : soleOwner
                  ? 'You are its only owner: make another member an owner first, or delete the workspace.'
                  : 'You lose access to its sites. A member who manages people can add you again.'}
            </p>
          </div>
          {!workspace.personal && !soleOwner && (
            <Button
              onClick={() => {
                leave.reset();
                setLeaving(true);
              }}
            >
              Leave workspace…
            </Button>
          )}
        </div>
        {leave.error !== null && !leaving && (
          <Alert kind="error" title="You are still a member">
            <p>{errorMessage(leave.error)}</p>
          </Alert>
        )}
      </section>

      {can(workspace.role, 'workspace.delete') && !workspace.personal && (
        <section className="card danger-zone" aria-labelledby="workspace-delete-title">
          <div className="card-header">
            <div>
              <h2 id="workspace-delete-title">Delete workspace</h2>
              <p>Deletes the workspace and every site in it, for all of its members.</p>
            </div>
            <Button
              variant="danger"
              onClick={() => {
                deletion.reset();
                setDeleting(true);
              }}
            >
              Delete workspace…
            </Button>
          </div>
          {deletion.error !== null && !deleting && (
            <Alert kind="error" title="The workspace was not deleted">
              <p>{errorMessage(deletion.error)}</p>
            </Alert>
          )}
        </section>
      )}

      <ConfirmDialog
        open={leaving}
        title={`Leave ${workspace.name}?`}
        confirmLabel="Leave workspace"
        danger
        busy={leave.isPending}
        onCancel={() => setLeaving(false)}
        onConfirm={() => leave.mutate(undefined, { onError: () => setLeaving(false) })}
      >
        <p>You will no longer see its sites.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={deleting}
        title={`Delete ${workspace.name}?`}
        confirmLabel="Delete workspace and its sites"
        danger
        busy={deletion.isPending}
        onCancel={() => setDeleting(false)}
        onConfirm={() => deletion.mutate(undefined, { onError: () => setDeleting(false) })}
      >
        <p>{workspace.name}, every site in it and their settings are deleted for all members. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}

function RenameSection({ workspace }: { workspace: Workspace }) {
  const queryClient = useQueryClient();
  const { register, handleSubmit, reset, formState } = useForm<{ name: string }>({ defaultValues: { name: workspace.name } });
  const rename = useMutation({
    mutationFn: (name: string) => renameWorkspace(workspace.id, name),
    onSuccess: async (saved) => {
      reset({ name: saved.name });
      queryClient.setQueryData(workspacesQuery().queryKey, (current) => current?.map((each) => (each.id === saved.id ? saved : each)));
      await queryClient.invalidateQueries({ queryKey: queryKeys.sites.all() });
    },
  });
  const serverFieldError = rename.error instanceof ApiError ? rename.error.fieldMessage('name') : undefined;
  const nameError = formState.errors.name?.message ?? (serverFieldError === undefined ? undefined : asSentence(serverFieldError));

  return (
    <section className="card" aria-labelledby="workspace-rename-title">
      <div className="card-header">
        <div>
          <h2 id="workspace-rename-title">Name</h2>
          <p>How the workspace is called in every member’s dashboard.</p>
        </div>
      </div>
      {rename.isSuccess && <Alert kind="success">Name saved.</Alert>}
      {rename.error !== null && serverFieldError === undefined && <Alert kind="error">{errorMessage(rename.error)}</Alert>}
      <form onSubmit={handleSubmit(({ name }) => rename.mutate(name.trim()))} noValidate className="workspace-create">
        <Field
          label="Workspace name"
          maxLength={WORKSPACE_NAME_MAX_LENGTH}
          autoComplete="off"
          error={nameError}
          {...register('name', { validate: (value) => value.trim() !== '' || 'Enter a name.', onChange: () => rename.reset() })}
        />
        <Button type="submit" variant="primary" busy={rename.isPending}>
          Save name
        </Button>
      </form>
    </section>
  );
}

/** Owners: require two-factor authentication of every member (PATCH require_two_factor). */
function TwoFactorRequirementSection({ workspace }: { workspace: Workspace }) {
  const queryClient = useQueryClient();
  const checkboxId = useId();
  const { register, handleSubmit, reset, formState } = useForm<{ required: boolean }>({ defaultValues: { required: workspace.require_two_factor } });
  const save = useMutation({
    mutationFn: (required: boolean) => setWorkspaceTwoFactorRequirement(workspace.id, required),
    onSuccess: async (saved) => {
      reset({ required: saved.require_two_factor });
      queryClient.setQueryData(workspacesQuery().queryKey, (current) => current?.map((each) => (each.id === saved.id ? saved : each)));
      await queryClient.invalidateQueries({ queryKey: membersQuery(workspace.id).queryKey });
    },
  });
  const needsOwnSecondFactor = save.error instanceof ApiError && save.error.code === WORKSPACE_ERRORS.TWO_FACTOR_SETUP_REQUIRED;

  return (
    <section className="card" aria-labelledby="workspace-two-factor-title">
      <div className="card-header">
        <div>
          <h2 id="workspace-two-factor-title">Two-factor authentication</h2>
          <p>Members without an authenticator app or a passkey cannot open this workspace’s sites, members or settings until they set one up. Turning it on e-mails them.</p>
        </div>
      </div>
      {save.isSuccess && <Alert kind="success">{save.data.require_two_factor ? 'Two-factor authentication is now required of every member.' : 'Two-factor authentication is no longer required.'}</Alert>}
      {needsOwnSecondFactor && (
        <Alert kind="error" title="Set it up for yourself first">
          <p>{errorMessage(save.error)}</p>
          <Link to="/settings/security">Go to Settings › Security</Link>
        </Alert>
      )}
      {save.error !== null && !needsOwnSecondFactor && <Alert kind="error">{errorMessage(save.error)}</Alert>}
      <form onSubmit={handleSubmit(({ required }) => save.mutate(required))} noValidate>
        <label className="checkbox-option" htmlFor={checkboxId}>
          <input id={checkboxId} type="checkbox" {...register('required', { onChange: () => save.reset() })} />
          <span>
            <span className="checkbox-label">Require two-factor authentication of every member</span>
            <span className="hint">An authenticator app (TOTP) or a passkey, on each member’s own account.</span>
          </span>
        </label>
        <Button type="submit" variant="primary" busy={save.isPending} disabled={!formState.isDirty}>
          Save
        </Button>
      </form>
    </section>
  );
}

/** How the review policy reads: "Changes are reviewed: 2 approvals before a change goes live." */
function reviewPolicyText(review: Workspace['review']): string {
  if (!review.required) return 'Changes go live when they are saved; no review is required.';
  return `Changes are reviewed: ${review.approvals === 1 ? '1 approval' : `${review.approvals} approvals`} from an admin or owner before a change goes live. Owners may still save directly, recorded as bypassing review.`;
}

const APPROVAL_CHOICES = Array.from({ length: REVIEW_APPROVALS_MAX - REVIEW_APPROVALS_MIN + 1 }, (_, index) => REVIEW_APPROVALS_MIN + index);

/** The review policy (PATCH review): set by admins and owners, read by everyone else. */
function ReviewPolicySection({ workspace }: { workspace: Workspace }) {
  const queryClient = useQueryClient();
  const checkboxId = useId();
  const approvalsId = useId();
  const editable = can(workspace.role, 'review.manage');
  const { register, handleSubmit, reset, formState, watch } = useForm<{ required: boolean; approvals: string }>({
    defaultValues: { required: workspace.review.required, approvals: String(workspace.review.approvals) },
  });
  const save = useMutation({
    mutationFn: (review: { required: boolean; approvals: number }) => setWorkspaceReviewPolicy(workspace.id, review),
    onSuccess: async (saved) => {
      reset({ required: saved.review.required, approvals: String(saved.review.approvals) });
      queryClient.setQueryData(workspacesQuery().queryKey, (current) => current?.map((each) => (each.id === saved.id ? saved : each)));
      // The queue and the editors' Save or Propose follow the policy.
      await queryClient.invalidateQueries({ queryKey: queryKeys.changeRequests.all() });
    },
  });
  const required = watch('required');

  return (
    <section className="card" aria-labelledby="workspace-review-title">
      <div className="card-header">
        <div>
          <h2 id="workspace-review-title">Review of changes</h2>
          <p>{editable ? 'When review is required, editors and admins propose changes to sites; another admin or owner approves them before they go live.' : reviewPolicyText(workspace.review)}</p>
        </div>
      </div>
      {editable && (
        <>
          {save.isSuccess && <Alert kind="success">{reviewPolicyText(save.data.review)}</Alert>}
          {save.error !== null && <Alert kind="error">{errorMessage(save.error)}</Alert>}
          <form onSubmit={handleSubmit((values) => save.mutate({ required: values.required, approvals: Number(values.approvals) }))} noValidate className="review-policy">
            <label className="checkbox-option" htmlFor={checkboxId}>
              <input id={checkboxId} type="checkbox" {...register('required', { onChange: () => save.reset() })} />
              <span>
                <span className="checkbox-label">Require review of changes to sites</span>
                <span className="hint">Editors and admins propose a change; it goes live once approved. Owners can still save directly.</span>
              </span>
            </label>
            <div className="field">
              <label htmlFor={approvalsId}>Approvals needed</label>
              <select id={approvalsId} aria-describedby={`${approvalsId}-hint`} {...register('approvals', { onChange: () => save.reset() })}>
                {APPROVAL_CHOICES.map((count) => (
                  <option key={count} value={String(count)}>
                    {count === 1 ? '1 approval' : `${count} approvals`}
                  </option>
                ))}
              </select>
              <p className="hint" id={`${approvalsId}-hint`}>
                {required ? 'From admins or owners other than the change’s author.' : 'Counted once review is required.'}
              </p>
            </div>
            <Button type="submit" variant="primary" busy={save.isPending} disabled={!formState.isDirty}>
              Save review policy
            </Button>
          </form>
        </>
      )}
    </section>
  );
}

function MembersSection({ workspace, currentUserId }: { workspace: Workspace; currentUserId: string | undefined }) {
  const queryClient = useQueryClient();
  const key = membersQuery(workspace.id).queryKey;
  const members = useMembers(workspace.id);
  const [removing, setRemoving] = useState<Member>();
  const [outcome, setOutcome] = useState<{ kind: 'success' | 'error'; text: string }>();

  const changeRole = useMutation({
    mutationFn: ({ member, role }: { member: Member; role: WorkspaceRole }) => changeMemberRole(workspace.id, member.user.id, role),
    onSuccess: (saved) => {
      queryClient.setQueryData(key, (current) => current?.map((each) => (each.user.id === saved.user.id ? saved : each)));
      setOutcome({ kind: 'success', text: `${displayName(saved)} is now ${ROLE_LABELS[saved.role].toLowerCase()}.` });
    },
    onError: (error, { member }) => setOutcome({ kind: 'error', text: `${displayName(member)} keeps their role. ${errorMessage(error)}` }),
  });
  const toasts = useToasts();
  const remove = useMutation({
    mutationFn: (member: Member) => removeMember(workspace.id, member.user.id),
    onSuccess: (_answer, member) => setOutcome({ kind: 'success', text: `${displayName(member)} was removed from ${workspace.name}.` }),
    onError: (error, member) => {
      setOutcome({ kind: 'error', text: `${displayName(member)} is still a member. ${errorMessage(error)}` });
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });

  /**
   * Removing someone ends their access and withdraws their invitations, which the server cannot
   * take back: it waits for the notice to end, and until then Undo keeps them (docs/decisions/dashboard-toasts-and-undo.md).
   */
  function removeWithUndo(member: Member) {
    setRemoving(undefined);
    setOutcome(undefined);
    queryClient.setQueryData(key, (current) => current?.filter((each) => each.user.id !== member.user.id));
    toasts.show({
      message: `${displayName(member)} will be removed from ${workspace.name} when this notice closes.`,
      action: { label: 'Undo', run: () => void queryClient.invalidateQueries({ queryKey: key }) },
      onExpire: () => remove.mutate(member),
    });
  }

  return (
    <section className="card" aria-labelledby="workspace-members-title">
      <div className="card-header">
        <div>
          <h2 id="workspace-members-title">Members</h2>
          <p>
            {can(workspace.role, 'member.manage')
              ? 'Viewers read sites; editors also change them and run partner checks; admins also delete sites and manage members; owners also rename or delete the workspace and make owners.'
              : 'The people in this workspace. Admins and owners change their roles.'}
          </p>
        </div>
      </div>
      {outcome !== undefined && <Alert kind={outcome.kind}>{outcome.text}</Alert>}
      {members.isError ? (
        <LoadFailed title="The members could not be loaded" message={errorMessage(members.error)} error={members.error} onRetry={() => void members.refetch()} />
      ) : members.data === undefined ? (
        <Loading label="Loading members…" />
      ) : (
        <ul className="list member-list" aria-busy={changeRole.isPending || undefined}>
          {members.data.map((member) => (
            <MemberRow
              key={member.user.id}
              member={member}
              callerRole={workspace.role}
              isSelf={member.user.id === currentUserId}
              busy={changeRole.isPending && changeRole.variables.member.user.id === member.user.id}
              onRoleChange={(role) => {
                setOutcome(undefined);
                changeRole.mutate({ member, role });
              }}
              onRemove={() => {
                setOutcome(undefined);
                setRemoving(member);
              }}
            />
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={removing !== undefined}
        title={`Remove ${removing === undefined ? '' : displayName(removing)}?`}
        confirmLabel="Remove member"
        danger
        onCancel={() => setRemoving(undefined)}
        onConfirm={() => removing !== undefined && removeWithUndo(removing)}
      >
        <p>They lose access to every site in {workspace.name}. You can undo this for a few seconds.</p>
      </ConfirmDialog>
    </section>
  );
}

function displayName(member: Member): string {
  return member.user.name.trim() === '' ? member.user.email : member.user.name;
}

interface MemberRowProps {
  member: Member;
  callerRole: WorkspaceRole;
  isSelf: boolean;
  busy: boolean;
  onRoleChange: (role: WorkspaceRole) => void;
  onRemove: () => void;
}

function MemberRow({ member, callerRole, isSelf, busy, onRoleChange, onRemove }: MemberRowProps) {
  const selectId = useId();
  const offered = rolesOffered(callerRole, member.role, isSelf);
  const name = displayName(member);
  // The choice is sent by its own button, not on change: arrowing through a closed select fires a
  // change per step, and passing over Owner must not hand the workspace over.
  const [chosen, setChosen] = useState<WorkspaceRole>(member.role);
  const pending = chosen !== member.role;
  return (
    <li className="member-row">
      <div className="list-main">
        <strong>
          {name}
          {isSelf && <span className="muted"> (you)</span>}
        </strong>
        {name !== member.user.email && <span className="muted small member-email">{member.user.email}</span>}
        <span className="muted small">
          Joined <time dateTime={member.joined_at} title={formatDateTime(member.joined_at)}>{formatRelative(member.joined_at)}</time>
        </span>
      </div>
      {offered.length > 0 ? (
        <div className="field member-role">
          <label htmlFor={selectId} className="visually-hidden">
            Role of {name}
          </label>
          <select id={selectId} value={chosen} disabled={busy} onChange={(event) => setChosen(offered.find((role) => role === event.target.value) ?? member.role)}>
            {offered.map((role) => (
              <option key={role} value={role}>
                {ROLE_LABELS[role]}
              </option>
            ))}
          </select>
        </div>
      ) : (
        <span className="badge">
          <span className="visually-hidden">Role: </span>
          {ROLE_LABELS[member.role]}
        </span>
      )}
      {pending && (
        <Button variant="primary" busy={busy} onClick={() => onRoleChange(chosen)} aria-label={`Make ${name} ${ROLE_LABELS[chosen].toLowerCase()}`}>
          Change role
        </Button>
      )}
      {canRemoveMember(callerRole, member.role, isSelf) && (
        <Button className="button-danger-outline" onClick={onRemove} aria-label={`Remove ${name}`}>
          Remove
        </Button>
      )}
    </li>
  );
}
