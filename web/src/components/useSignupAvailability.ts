import { useAuthConfig } from '../singleSignOn';

/**
 * Whether this server lets people create accounts (GET /auth/config). undefined until known; a
 * failed request counts as unknown, so the screens neither promise nor hide sign-up wrongly.
 */
export function useSignupAvailability(): 'open' | 'closed' | undefined {
  return useAuthConfig()?.signup;
}
