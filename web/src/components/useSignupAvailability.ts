import { useEffect, useState } from 'react';
import { fetchAuthConfig } from '../api/signIn';

/**
 * Whether this server lets people create accounts (GET /auth/config). undefined until known; a
 * failed request counts as unknown, so the screens neither promise nor hide sign-up wrongly.
 */
export function useSignupAvailability(): 'open' | 'closed' | undefined {
  const [signup, setSignup] = useState<'open' | 'closed'>();
  useEffect(() => {
    let current = true;
    fetchAuthConfig()
      .then((data) => {
        if (current) setSignup(data.signup);
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, []);
  return signup;
}
