import { errorMessage } from '../api/errors';
import { formatDateTime, formatRelative } from '../format';
import { useSecurityEvents } from '../queries';
import { isWarning, type SecurityEvent, securitySentence } from '../securityText';
import { Button } from './Button';
import { describeUserAgent } from './describeUserAgent';
import { LoadFailed } from './LoadFailed';
import { Loading } from './Loading';

/** Settings > Security > Recent activity: the account's own security history, newest first. */
export function RecentActivitySection() {
  const activity = useSecurityEvents();
  const events = activity.data?.pages.flatMap((page) => page.events) ?? [];
  return (
    <section className="card security-card" aria-labelledby="activity-title">
      <div className="card-header">
        <div>
          <h2 id="activity-title">Recent activity</h2>
          <p>Sign-ins to your account, failed ones too, and changes to how you sign in. Something you do not recognise? Change your password and sign out everywhere.</p>
        </div>
      </div>
      {activity.isError ? (
        <LoadFailed title="Could not load your recent activity" message={errorMessage(activity.error)} onRetry={() => void activity.refetch()} />
      ) : activity.data === undefined ? (
        <Loading label="Loading recent activity…" />
      ) : events.length === 0 ? (
        <p className="muted">Nothing yet.</p>
      ) : (
        <>
          <ul className="list activity-list" aria-label="Recent activity" aria-busy={activity.isFetchingNextPage || undefined}>
            {events.map((event) => (
              <ActivityItem key={event.id} event={event} />
            ))}
          </ul>
          {activity.hasNextPage && (
            <Button onClick={() => void activity.fetchNextPage()} busy={activity.isFetchingNextPage}>
              Show older activity
            </Button>
          )}
        </>
      )}
    </section>
  );
}

function ActivityItem({ event }: { event: SecurityEvent }) {
  const warning = isWarning(event);
  return (
    <li className={warning ? 'activity-warning' : undefined}>
      <div className="list-main">
        <span>
          {warning && <span className="visually-hidden">Warning: </span>}
          {securitySentence(event)}
        </span>
        <span className="muted small">
          <time dateTime={event.at} title={formatDateTime(event.at)}>
            {formatRelative(event.at)}
          </time>
          {event.user_agent !== '' && (
            <>
              {' · '}
              <span title={event.user_agent}>{describeUserAgent(event.user_agent)}</span>
            </>
          )}
          {` · ${event.ip}`}
        </span>
      </div>
    </li>
  );
}
