import { useQuery } from '@tanstack/react-query';
import { MAX_PAGE_SIZE } from '@server/sites/contract';
import { errorMessage } from '../api/errors';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { siteListQuery, useReviewQueue } from '../queries';
import type { Workspace } from '../workspaces';
import { ChangeRequestList } from './ChangeRequestList';

/** The sites of a workspace by name, for the queue's rows (the requests carry the site's id only). */
function useSiteNames(workspaceId: string): ReadonlyMap<string, string> {
  const sites = useQuery(siteListQuery({ workspaceId, q: '', sort: 'name', cursor: null, limit: MAX_PAGE_SIZE }));
  return new Map((sites.data?.sites ?? []).map((site) => [site.id, site.name]));
}

/** "Waiting for review" on the Sites screen: a workspace's requests that are open or scheduled. */
export function ReviewQueue({ workspace, named }: { workspace: Workspace; named: boolean }) {
  const queue = useReviewQueue(workspace.id);
  const siteNames = useSiteNames(workspace.id);
  const titleId = `review-queue-${workspace.id}`;
  return (
    // A fixed height, its list scrolling inside: the sites list below never moves as it loads.
    <section className="card review-queue" aria-labelledby={titleId}>
      <div className="card-header">
        <div>
          <h2 id={titleId}>{named ? `Waiting for review in ${workspace.name}` : 'Waiting for review'}</h2>
          <p>Changes proposed to its sites, before they go live.</p>
        </div>
      </div>
      {/* Focusable, so the list can be scrolled from the keyboard too. */}
      <div className="review-queue-body" tabIndex={0} role="group" aria-labelledby={titleId}>
        {queue.isError ? (
          <LoadFailed title="The changes waiting for review could not be loaded" message={errorMessage(queue.error)} onRetry={() => void queue.refetch()} />
        ) : queue.data === undefined ? (
          <Loading label="Loading the changes waiting for review…" />
        ) : queue.data.length === 0 ? (
          <p className="muted">Nothing is waiting for review.</p>
        ) : (
          <ChangeRequestList requests={queue.data} siteNames={siteNames} approvalsNeeded={workspace.review.required ? workspace.review.approvals : undefined} label={`Waiting for review in ${workspace.name}`} />
        )}
      </div>
    </section>
  );
}

/** Every reviewed workspace's queue (or the one chosen on the Sites screen). */
export function ReviewQueues({ workspaces }: { workspaces: readonly Workspace[] }) {
  return (
    <>
      {workspaces.map((workspace) => (
        <ReviewQueue key={workspace.id} workspace={workspace} named={workspaces.length > 1 || !workspace.personal} />
      ))}
    </>
  );
}
