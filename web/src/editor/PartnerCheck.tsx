import type { PartnerSettings } from '../api/types';
import { PartnerCheckDetails } from './PartnerCheckDetails';
import type { PartnerCheckResult } from './partnerCheckText';
import { formatDateTime, formatRelative } from '../format';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { CheckStatusBadge } from '../components/PartnerStatusBadge';

interface PartnerCheckProps {
  /** The settings as saved on the server: the check always uses these. */
  saved: PartnerSettings;
  /** The form holds partner changes that are not saved yet. */
  unsavedChanges: boolean;
  /** The history's record of the last check, with what it learnt; undefined until it has loaded. */
  latest: PartnerCheckResult | undefined;
  busy: boolean;
  error: string | undefined;
  /** Said to screen readers when a check has finished. */
  announcement: string;
  /** Runs a check; undefined when the person's role may not (no button then). */
  onCheck: (() => void) | undefined;
}

/** "Check now" and the last check's result as the server recorded it, with its details. */
export function PartnerCheck({ saved, unsavedChanges, latest, busy, error, announcement, onCheck }: PartnerCheckProps) {
  // The history's newest entry is the check the site's fields describe, unless a newer one has
  // not reached the history yet: then the stored error text stands alone.
  const details = latest !== undefined && saved.last_checked_at !== null && Date.parse(latest.at) === Date.parse(saved.last_checked_at) ? latest : undefined;
  return (
    <div className="partner-check" aria-labelledby="partner-check-title" role="group">
      <div className="partner-check-header">
        <div>
          <h3 id="partner-check-title">Connection</h3>
          <dl className="partner-check-facts">
            <div>
              <dt>Status</dt>
              <dd>
                <CheckStatusBadge status={saved.last_status} />
              </dd>
            </div>
            <div>
              <dt>Last checked</dt>
              <dd>
                {saved.last_checked_at === null ? (
                  'Never'
                ) : (
                  <time dateTime={saved.last_checked_at} title={formatDateTime(saved.last_checked_at)}>
                    {formatRelative(saved.last_checked_at)}
                  </time>
                )}
              </dd>
            </div>
          </dl>
        </div>
        {onCheck !== undefined && (
          <Button onClick={onCheck} busy={busy}>
            {busy ? 'Checking…' : 'Check now'}
          </Button>
        )}
      </div>
      <p className="visually-hidden" role="status">
        {busy ? 'Checking the saved settings…' : announcement}
      </p>
      {details !== undefined && <PartnerCheckDetails check={details} />}
      {details === undefined && saved.last_error !== null && saved.last_error !== '' && (
        <p className="partner-last-error">
          <span className="visually-hidden">Last error: </span>
          {saved.last_error}
        </p>
      )}
      {unsavedChanges && (
        <p className="hint">The check uses the saved settings. To try your unsaved changes, use Test before saving below.</p>
      )}
      {error !== undefined && <Alert kind="error">{error}</Alert>}
    </div>
  );
}
