import { useMutation } from '@tanstack/react-query';
import { PARTNER_ERRORS } from '@server/partner/errors';
import type { PartnerSettingsUpdate } from '@server/sites/schema';
import { ApiError, errorMessage, type FieldError, formatWait } from '../api/errors';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { CheckStatusBadge } from '../components/PartnerStatusBadge';
import { asSentence } from '../format';
import { fieldLabel } from '../siteDraft';
import { PartnerCheckDetails } from './PartnerCheckDetails';
import { checkAnnouncement } from './partnerCheckText';
import { testPartnerSettings } from '../api/sites';

interface PartnerTestPanelProps {
  siteId: string;
  /** The partner settings as the form holds them now (partnerTestBody). */
  settings: PartnerSettingsUpdate;
  /** The server refused fields of the draft (or, with [], accepted them all): they belong next to the fields. */
  onFieldErrors: (errors: FieldError[]) => void;
}

/**
 * "Test before saving": checks the unsaved partner settings (POST …/partner/test). The server
 * stores nothing, neither the settings nor the result, so the result is shown here only and is
 * marked as a test of unsaved settings.
 */
export function PartnerTestPanel({ siteId, settings, onFieldErrors }: PartnerTestPanelProps) {
  const testing = useMutation({
    mutationFn: (sent: PartnerSettingsUpdate) => testPartnerSettings(siteId, { partner_settings: sent }),
  });

  function runTest() {
    testing.mutate(settings, {
      onSuccess: () => onFieldErrors([]),
      onError: (error) => {
        if (error instanceof ApiError && error.status === 400 && error.errors.length > 0) onFieldErrors(error.errors);
      },
    });
  }

  const check = testing.data;
  // The form has moved on since the test: the result no longer describes what is on screen.
  const outdated = check !== undefined && JSON.stringify(testing.variables) !== JSON.stringify(settings);
  const announcement = testing.isPending ? 'Testing the unsaved settings…' : check !== undefined ? `Test finished. ${checkAnnouncement(check)}` : '';

  return (
    <section className="partner-test" aria-labelledby="partner-test-title">
      <div className="partner-test-header">
        <div>
          <h3 id="partner-test-title">Test before saving</h3>
          <p className="hint">
            Checks the settings as they are in this form now, a newly typed access token included. Nothing is saved, and the test does not appear
            under Recent checks.
          </p>
        </div>
        <Button onClick={runTest} busy={testing.isPending}>
          {testing.isPending ? 'Testing…' : 'Test these settings'}
        </Button>
      </div>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {testing.isError && <TestRefused error={testing.error} />}
      {check !== undefined && !testing.isPending && (
        <div className={`partner-test-result partner-test-result-${check.status}`} data-testid="partner-test-result">
          <p className="partner-test-result-title">
            <CheckStatusBadge status={check.status} />
            <strong>Test of unsaved settings</strong>
            <span className="partner-test-result-note">Nothing was saved.</span>
          </p>
          {outdated && <p className="hint">You have changed the settings since this test. Test again to check them as they are now.</p>}
          <PartnerCheckDetails check={check} />
        </div>
      )}
    </section>
  );
}

function TestRefused({ error }: { error: unknown }) {
  if (error instanceof ApiError && error.code === PARTNER_ERRORS.TEST_RATE_LIMITED) {
    return (
      <Alert kind="error" title="Not tested: too many tests in a short time">
        <p>
          You can test again in {formatWait(error.retryAfterSeconds ?? 60)}. Nothing was saved or changed.
        </p>
      </Alert>
    );
  }
  if (error instanceof ApiError && error.status === 400 && error.errors.length > 0) {
    return (
      <Alert kind="error" title="Not tested: some settings are not valid">
        <ul className="error-summary">
          {error.errors.map((fieldError) => (
            <li key={`${fieldError.path}:${fieldError.message}`}>
              <strong>{fieldLabel(fieldError.path)}</strong>: {asSentence(fieldError.message)}
            </li>
          ))}
        </ul>
      </Alert>
    );
  }
  return (
    <Alert kind="error" title="Not tested">
      <p>{errorMessage(error)}</p>
    </Alert>
  );
}
