import { useQueryClient } from '@tanstack/react-query';
import { PasskeysSection } from '../components/PasskeysSection';
import { PasswordSection } from '../components/PasswordSection';
import { RecentActivitySection } from '../components/RecentActivitySection';
import { SessionsSection } from '../components/SessionsSection';
import { SignInMethodsSection } from '../components/SignInMethodsSection';
import { TwoFactorSection } from '../components/TwoFactorSection';
import { queryKeys } from '../queryKeys';
import { useTitle } from '../useTitle';

/** Settings > Security: how you sign in (password, 2FA, passkeys, single sign-on) and where you are signed in. */
export function SecurityPage() {
  useTitle('Security');
  const queryClient = useQueryClient();
  // A change that ends other sessions (a new password, 2FA off) makes the list out of date, and
  // every change here is a new line of recent activity.
  const sessionsChanged = () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.account.sessions() });
    void queryClient.invalidateQueries({ queryKey: queryKeys.account.securityEvents() });
  };
  return (
    <>
      <header className="page-header">
        <div>
          <h1>Security</h1>
          <p>Your password, two-factor authentication, passkeys, sign-in providers, signed-in devices and recent activity.</p>
        </div>
      </header>
      <PasswordSection onChanged={sessionsChanged} />
      <TwoFactorSection onChanged={sessionsChanged} />
      <PasskeysSection />
      <SignInMethodsSection onChanged={sessionsChanged} />
      <SessionsSection />
      <RecentActivitySection />
    </>
  );
}
