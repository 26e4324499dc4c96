import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import { REVIEW_APPROVALS_MAX, REVIEW_APPROVALS_MIN } from '@server/workspaces/contract';
import { errorMessage } from '../../api/errors';
import { Alert } from '../../components/Alert';
import { Button } from '../../components/Button';
import { can } from '../../workspaceAccess';
import type { Workspace } from '../../workspaces';
import { setWorkspaceReviewPolicy } from '../../api/workspaces';
import { workspacesQuery } from '../../queries';
import { queryKeys } from '../../queryKeys';

/** How the review policy reads: "Changes are reviewed: 2 approvals before a change goes live." */
function reviewPolicyText(review: Workspace['review']): string {
  if (!review.required) return 'Changes go live when they are saved; no review is required.';
  return `Changes are reviewed: ${review.approvals === 1 ? '1 approval' : `${review.approvals} approvals`} from an admin or owner before a change goes live. Owners may still save directly, recorded as bypassing review.`;
}

const APPROVAL_CHOICES = Array.from({ length: REVIEW_APPROVALS_MAX - REVIEW_APPROVALS_MIN + 1 }, (_, index) => REVIEW_APPROVALS_MIN + index);

/** The review policy (PATCH review): set by admins and owners, read by everyone else. */
export function ReviewPolicySection({ workspace }: { workspace: Workspace }) {
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
