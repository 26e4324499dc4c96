import type { FieldError } from '../api/errors';
import type { PartnerDraft, Site } from '../api/types';
import { PartnerCheck } from './PartnerCheck';
import { PartnerSettingsForm } from '../components/PartnerSettingsForm';
import { draftOf, type SiteDraft, type TokenChange } from '../siteDraft';
import { partnerTestBody } from './partnerCheckText';
import { PartnerTestPanel } from './PartnerTestPanel';
import { usePartnerChecks } from '../queries';
import { RecentChecks } from './RecentChecks';

interface IntegrationSectionProps {
  siteId: string;
  saved: Site;
  draft: SiteDraft;
  /** The settings are shown, not edited. */
  readOnly: boolean;
  /** The person may run checks and tests (Check now, Test these settings). */
  canCheck: boolean;
  partnerUnsaved: boolean;
  checkBusy: boolean;
  checkError: string | undefined;
  checkAnnouncement: string;
  onCheck: () => void;
  onPartnerChange: (patch: Partial<PartnerDraft>) => void;
  onTokenChange: (change: TokenChange) => void;
  errors: FieldError[];
  onTestFieldErrors: (errors: FieldError[]) => void;
  /** The access token the last save sent, if it sent one. */
  lastSavedToken: string | undefined;
}

/**
 * The editor's Integration section: the last check of the saved settings (Check now), the
 * partner form, a test of what the form holds before it is saved, and the recent checks.
 */
export function IntegrationSection(props: IntegrationSectionProps) {
  const { siteId, saved, draft } = props;
  const history = usePartnerChecks(siteId);
  return (
    <>
      <section className="card" aria-labelledby="partner-title">
        <div className="card-header">
          <div>
            <h3 id="partner-title">Partner integration</h3>
            <p>Connect the site to the partner service over HTTP and MCP.</p>
          </div>
        </div>
        <PartnerCheck
          saved={saved.partner_settings}
          unsavedChanges={props.partnerUnsaved}
          latest={history.data?.[0]}
          busy={props.checkBusy}
          error={props.checkError}
          announcement={props.checkAnnouncement}
          onCheck={props.canCheck ? props.onCheck : undefined}
        />
        <fieldset disabled={props.readOnly}>
          <PartnerSettingsForm
            draft={draft.partner}
            onChange={props.onPartnerChange}
            tokenConfigured={saved.partner_settings.access_token_configured}
            tokenChange={draft.accessToken}
            onTokenChange={props.onTokenChange}
            errors={props.errors}
          />
        </fieldset>
        {props.canCheck && (
          <PartnerTestPanel
            siteId={siteId}
            settings={partnerTestBody(draft)}
            savedSettings={partnerTestBody(draftOf(saved))}
            lastSavedToken={props.lastSavedToken}
            latest={history.data?.[0]}
            onFieldErrors={props.onTestFieldErrors}
          />
        )}
      </section>
      <RecentChecks siteId={siteId} />
    </>
  );
}
