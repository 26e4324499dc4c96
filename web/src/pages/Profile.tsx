import { DeleteAccountSection } from '../components/DeleteAccountSection';
import { EmailChangeSection } from '../components/EmailChangeSection';
import { ProfileNameSection } from '../components/ProfileNameSection';
import { useTitle } from '../useTitle';

/** Settings > Profile: your name, the address you sign in with, and deleting the account. */
export function ProfilePage() {
  useTitle('Profile');
  return (
    <>
      <header className="page-header">
        <div>
          <h1>Profile</h1>
          <p>Your name and the e-mail address you sign in with.</p>
        </div>
      </header>
      <ProfileNameSection />
      <EmailChangeSection />
      <DeleteAccountSection />
    </>
  );
}
