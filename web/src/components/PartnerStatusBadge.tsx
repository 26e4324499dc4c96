import type { PartnerSettings } from '../api/types';

/** The result of the last connection check, as the server recorded it. */
export function CheckStatusBadge({ status }: { status: string }) {
  if (status === 'ok') return <span className="badge badge-success">OK</span>;
  if (status === 'error') return <span className="badge badge-danger">Error</span>;
  return <span className="badge">Not checked</span>;
}

/** The integration at a glance, for the site list: off, or on with its last check's result. */
export function PartnerStatusBadge({ partner }: { partner: PartnerSettings }) {
  if (!partner.enabled) return <span className="badge">Partner disabled</span>;
  if (partner.last_status === 'ok') return <span className="badge badge-success">Partner OK</span>;
  if (partner.last_status === 'error') return <span className="badge badge-danger">Partner error</span>;
  return <span className="badge badge-accent">Partner not checked</span>;
}
