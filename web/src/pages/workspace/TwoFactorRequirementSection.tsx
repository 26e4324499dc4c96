import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import { WORKSPACE_ERRORS } from '@server/memberships/errors';
import { ApiError, errorMessage } from '../../api/errors';
import { Alert } from '../../components/Alert';
import { Button } from '../../components/Button';
import { Link } from '../../router';
import type { Workspace } from '../../workspaces';
import { setWorkspaceTwoFactorRequirement } from '../../api/workspaces';
import { membersQuery, workspacesQuery } from '../../queries';

/** Owners: require two-factor authentication of every member (PATCH require_two_factor). */
export function TwoFactorRequirementSection({ workspace }: { workspace: Workspace }) {
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
