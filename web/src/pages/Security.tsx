import { useState } from 'react';
import { PasskeysSection } from '../components/PasskeysSection';
import { PasswordSection } from '../components/PasswordSection';
import { SessionsSection } from '../components/SessionsSection';
import { TwoFactorSection } from '../components/TwoFactorSection';
import { useTitle } from '../useTitle';

/** Settings > Security: how you sign in (password, 2FA, passkeys) and where you are signed in. */
export function SecurityPage() {
  useTitle('Security');
  // Bumped when a change ends other sessions (a new password, 2FA off), so the list reloads.
  const [sessionsVersion, setSessionsVersion] = useState(0);
  const sessionsChanged = () => setSessionsVersion((version) => version + 1);
  return (
    <>
      <header className="page-header">
        <div>
          <h1>Security</h1>
          <p>Your password, two-factor authentication, passkeys and signed-in devices.</p>
        </div>
      </header>
      <PasswordSection onChanged={sessionsChanged} />
      <TwoFactorSection onChanged={sessionsChanged} />
      <PasskeysSection />
      <SessionsSection version={sessionsVersion} />
    </>
  );
}
