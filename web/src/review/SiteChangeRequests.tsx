import { errorMessage } from '../api/errors';
import { isPending } from '../changeRequests';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { useSiteChangeRequests } from '../queries';
import type { Workspace } from '../workspaces';
import { ChangeRequestList } from './ChangeRequestList';

/** The editor's Change requests section: the site's requests waiting for review, then the ones that ended. */
export function SiteChangeRequestsSection({ siteId, workspace }: { siteId: string; workspace: Workspace | undefined }) {
  const requests = useSiteChangeRequests(siteId);
  const approvalsNeeded = workspace?.review.required === true ? workspace.review.approvals : undefined;
  const waiting = requests.data?.filter((request) => isPending(request.status)) ?? [];
  const ended = requests.data?.filter((request) => !isPending(request.status)) ?? [];
  return (
    <>
      <section className="card" aria-labelledby="site-review-title">
        <div className="card-header">
          <div>
            <h3 id="site-review-title">Waiting for review</h3>
            <p>
              {workspace?.review.required === true
                ? `Changes to this site are reviewed: each needs ${approvalsNeeded === 1 ? '1 approval' : `${approvalsNeeded} approvals`} from an admin or owner before it goes live.`
                : 'Changes proposed for this site. Review is not required in its workspace, so a proposal can be applied without approvals.'}
            </p>
          </div>
        </div>
        {requests.isError ? (
          <LoadFailed title="The change requests could not be loaded" message={errorMessage(requests.error)} error={requests.error} onRetry={() => void requests.refetch()} />
        ) : requests.data === undefined ? (
          <Loading label="Loading the change requests…" />
        ) : waiting.length === 0 ? (
          <p className="muted">Nothing is waiting for review.</p>
        ) : (
          <ChangeRequestList requests={waiting} approvalsNeeded={approvalsNeeded} label="Waiting for review" />
        )}
      </section>
      {ended.length > 0 && (
        <section className="card" aria-labelledby="site-review-ended-title">
          <div className="card-header">
            <div>
              <h3 id="site-review-ended-title">Earlier requests</h3>
              <p>Applied, declined, withdrawn or failed; newest first.</p>
            </div>
          </div>
          <ChangeRequestList requests={ended} approvalsNeeded={approvalsNeeded} label="Earlier requests" />
        </section>
      )}
    </>
  );
}
