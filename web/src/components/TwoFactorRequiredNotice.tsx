import { WORKSPACE_ERRORS } from '@server/memberships/errors';
import { ApiError } from '../api/errors';
import { Link } from '../router';
import { Alert } from './Alert';

/** Whether a request was refused because a workspace requires a second factor the person lacks. */
export function isTwoFactorRequired(error: unknown): boolean {
  return error instanceof ApiError && error.code === WORKSPACE_ERRORS.TWO_FACTOR_REQUIRED;
}

/**
 * What a member sees where a workspace that requires two-factor authentication is closed to them:
 * why, and the way to open it (Settings > Security), rather than an error to retry.
 */
export function TwoFactorRequiredNotice() {
  return (
    <Alert kind="warning" title="Two-factor authentication required">
      <p>This workspace requires two-factor authentication of its members. Turn on an authenticator app or add a passkey, and it opens for you at once.</p>
      <Link to="/settings/security" className="button button-primary">
        Set up two-factor authentication
      </Link>
    </Alert>
  );
}
