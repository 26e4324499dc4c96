import type { PartnerSettings } from '../api';
import { formatDateTime, formatRelative } from '../format';
import { Alert } from './Alert';
import { Button } from './Button';
import { CheckStatusBadge } from './PartnerStatusBadge';

interface PartnerCheckProps {
  /** The settings as saved on the server: the check always uses these. */
  saved: PartnerSettings;
  /** The form holds partner changes that are not saved yet. */
  unsavedChanges: boolean;
  busy: boolean;
  error: string | undefined;
  onCheck: () => void;
}

/** "Check connection" and the last check's result as the server recorded it. */
export function PartnerCheck({ saved, unsavedChanges, busy, error, onCheck }: PartnerCheckProps) {
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
        <Button onClick={onCheck} busy={busy}>
          {busy ? 'Checking…' : 'Check connection'}
        </Button>
      </div>
      {saved.last_error !== null && saved.last_error !== '' && (
        <p className="partner-last-error">
          <span className="visually-hidden">Last error: </span>
          {saved.last_error}
        </p>
      )}
      {unsavedChanges && (
        <p className="hint">The check uses the saved settings. Save your partner changes first to check them.</p>
      )}
      {error !== undefined && <Alert kind="error">{error}</Alert>}
    </div>
  );
}
