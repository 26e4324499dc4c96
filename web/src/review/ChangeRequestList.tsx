import type { ChangeRequest } from '../api/changeRequests';
import { approvalsText, changeRequestPath, isPending, personName, statusLabel } from '../changeRequests';
import { formatDateTime, formatRelative } from '../format';
import { Link } from '../router';
import './review.css';

interface ChangeRequestListProps {
  requests: readonly ChangeRequest[];
  /** Names of the requests' sites, by id; a list of one site's requests leaves it out. */
  siteNames?: ReadonlyMap<string, string>;
  /** The approvals the workspace requires; undefined while review is not required. */
  approvalsNeeded: number | undefined;
  label: string;
}

/** Change requests, one row each: title, author, site, status, approvals so far and when it was proposed. */
export function ChangeRequestList({ requests, siteNames, approvalsNeeded, label }: ChangeRequestListProps) {
  return (
    <ul className="change-request-list" aria-label={label}>
      {requests.map((request) => (
        <li key={request.id} className="change-request-row">
          <div className="list-main">
            <Link to={changeRequestPath(request.site_id, request.id)}>
              <strong>{request.title}</strong>
            </Link>
            <span className="change-request-meta muted small">
              <span>by {personName(request.author)}</span>
              {siteNames !== undefined && <span>on {siteNames.get(request.site_id) ?? 'a site'}</span>}
              <span>
                proposed{' '}
                <time dateTime={request.created_at} title={formatDateTime(request.created_at)}>
                  {formatRelative(request.created_at)}
                </time>
              </span>
            </span>
          </div>
          <span className="change-request-meta small">
            <span className="badge">{statusLabel(request, approvalsNeeded)}</span>
            {request.status === 'scheduled' && request.scheduled_at !== null && (
              <span>
                for <time dateTime={request.scheduled_at}>{formatDateTime(request.scheduled_at)}</time>
              </span>
            )}
            {isPending(request.status) && <span>{approvalsText(request.approvals.length, approvalsNeeded)}</span>}
            {request.status === 'applied' && request.applied_version !== null && <span>as version {request.applied_version}</span>}
          </span>
        </li>
      ))}
    </ul>
  );
}
