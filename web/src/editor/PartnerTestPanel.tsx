import { useMutation } from '@tanstack/react-query';
import { PARTNER_ERRORS } from '@server/partner/errors';
import type { PartnerSettingsUpdate } from '../api/types';
import { ApiError, errorMessage, type FieldError, formatWait } from '../api/errors';
import { Alert } from '../components/Alert';
import { Button } from '../components/Button';
import { CheckStatusBadge } from '../components/PartnerStatusBadge';
import { asSentence } from '../format';
import { fieldLabel } from '../siteDraft';
import { useEffect, useRef, useState } from 'react';
import { PartnerCheckDetails } from './PartnerCheckDetails';
import { checkAnnouncement, type PartnerCheckResult } from './partnerCheckText';
import { testPartnerSettings } from '../api/sites';

interface PartnerTestPanelProps {
  siteId: string;
  /** The partner settings as the form holds them now (partnerTestBody). */
  settings: PartnerSettingsUpdate;
  /** The saved partner settings as a test would send them (no new token): after a save, a test of exactly these describes the saved site. */
  savedSettings: PartnerSettingsUpdate;
  /** The access token the last save sent, if it sent one. */
  lastSavedToken: string | undefined;
  /** The last check of the saved settings, shown above this panel. */
  latest: PartnerCheckResult | undefined;
  /** The server refused fields of the draft (or, with [], accepted them all): they belong next to the fields. */
  onFieldErrors: (errors: FieldError[]) => void;
}

/** The settings a test sent, without the token: once saved, a new token reads as "keep the saved one". */
function withoutToken(settings: PartnerSettingsUpdate): string {
  const { access_token: _token, ...rest } = settings;
  return JSON.stringify(rest);
}

/**
 * "Test before saving": checks the unsaved partner settings (POST …/partner/test). The server
 * stores nothing, neither the settings nor the result, so the result is shown here only and is
 * marked as a test of unsaved settings.
 */
export function PartnerTestPanel({ siteId, settings, savedSettings, lastSavedToken, latest, onFieldErrors }: PartnerTestPanelProps) {
  const testing = useMutation({
    mutationFn: (sent: PartnerSettingsUpdate) => testPartnerSettings(siteId, { partner_settings: sent }),
  });
  // What the shown result describes: what was sent, until a save makes those the saved settings.
  const [tested, setTested] = useState<PartnerSettingsUpdate>();
  const savedKey = JSON.stringify(savedSettings);
  // The saved settings and the token saved with them reach this panel in either order.
  const saveKey = `${savedKey}\n${lastSavedToken ?? ''}`;
  const previousSave = useRef(saveKey);
  useEffect(() => {
    if (previousSave.current === saveKey) return;
    previousSave.current = saveKey;
    // A save of exactly what was tested, the token typed for the test included (saved now, and so
    // no longer a new one in the form): the result describes the saved settings.
    setTested((current) =>
      current !== undefined && withoutToken(current) === savedKey && (current.access_token === undefined || current.access_token === lastSavedToken) ? savedSettings : current,
    );
  }, [saveKey, savedKey, savedSettings, lastSavedToken]);

  function runTest() {
    setTested(settings);
    testing.mutate(settings, {
      onSuccess: () => onFieldErrors([]),
      onError: (error) => {
        if (error instanceof ApiError && error.status === 400 && error.errors.length > 0) onFieldErrors(error.errors);
      },
    });
  }

  const check = testing.data;
  // The form has moved on since the test: the result no longer describes what is on screen.
  const outdated = check !== undefined && JSON.stringify(tested) !== JSON.stringify(settings);
  const nowSaved = check !== undefined && !outdated && JSON.stringify(tested) === savedKey;
  // The last check of the saved settings, above, found the same: its details are not repeated here.
  const sameAsLatest = nowSaved && latest !== undefined && latest.status === check.status && latest.category === check.category && latest.message === check.message;
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
            <strong>{nowSaved ? 'Test of the settings now saved' : 'Test of unsaved settings'}</strong>
            {!nowSaved && <span className="partner-test-result-note">Nothing was saved.</span>}
          </p>
          {outdated && <p className="hint">You have changed the settings since this test. Test again to check them as they are now.</p>}
          {sameAsLatest ? <p className="hint">The same as the last check above.</p> : <PartnerCheckDetails check={check} />}
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
