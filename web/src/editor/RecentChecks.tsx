import { CHECK_HISTORY_LENGTH } from '@server/partner/contract';
import { errorMessage } from '../api/errors';
import { usePartnerChecks } from '../queries';
import { LoadFailed } from '../components/LoadFailed';
import { CheckStatusBadge } from '../components/PartnerStatusBadge';
import { formatDateTime, formatRelative } from '../format';
import { PartnerCheckDetails } from './PartnerCheckDetails';
import { CHECK_CATEGORY_TEXT, formatDuration, type PartnerCheckResult } from './partnerCheckText';

/** "Recent checks": each row says when, how it went and how long it took, and opens to the details. */
export function RecentChecks({ siteId }: { siteId: string }) {
  const history = usePartnerChecks(siteId);
  return (
    <section className="card recent-checks" aria-labelledby="recent-checks-title">
      <div className="card-header">
        <div>
          <h3 id="recent-checks-title">Recent checks</h3>
          <p>The last {CHECK_HISTORY_LENGTH} checks of the saved settings, newest first. Tests of unsaved settings are not kept.</p>
        </div>
      </div>
      {history.isPending ? (
        <p className="hint" role="status">
          Loading recent checks…
        </p>
      ) : history.isError ? (
        <LoadFailed title="Recent checks could not be loaded" message={errorMessage(history.error)} onRetry={() => void history.refetch()} />
      ) : history.data.length === 0 ? (
        <p className="recent-checks-empty">No checks yet. Check now tries the saved settings, and every check is listed here.</p>
      ) : (
        <ol className="recent-checks-list">
          {withKeys(history.data).map(({ key, check }) => (
            <li key={key}>
              <CheckRow check={check} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/**
 * Checks have no id. Their time, numbered among checks of the same millisecond, stays with a row
 * when newer checks arrive on top, so a row that was opened stays open.
 */
function withKeys(checks: PartnerCheckResult[]): Array<{ key: string; check: PartnerCheckResult }> {
  const seen = new Map<string, number>();
  // Oldest first, so the numbers of existing rows do not change when a newer check arrives.
  return [...checks]
    .reverse()
    .map((check) => {
      const count = seen.get(check.at) ?? 0;
      seen.set(check.at, count + 1);
      return { key: `${check.at}#${count}`, check };
    })
    .reverse();
}

function CheckRow({ check }: { check: PartnerCheckResult }) {
  return (
    <details className="recent-check">
      <summary>
        <span className="recent-check-line">
          <CheckStatusBadge status={check.status} />
          <span className="recent-check-category">{CHECK_CATEGORY_TEXT[check.category].summary}</span>
          <span className="recent-check-duration">{formatDuration(check.duration_ms)}</span>
          <span className="recent-check-time">
            <time dateTime={check.at}>{formatRelative(check.at)}</time>
            <span className="recent-check-exact">{formatDateTime(check.at)}</span>
          </span>
        </span>
      </summary>
      <PartnerCheckDetails check={check} />
    </details>
  );
}
