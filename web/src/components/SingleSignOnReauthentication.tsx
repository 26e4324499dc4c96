import { useIdentities } from '../queries';
import { singleSignOnStartPath, useAuthConfig } from '../singleSignOn';

/**
 * In the "Confirm it's you" dialog: signing in again through a linked provider is a recent sign-in
 * too, and the only one an account without a password or passkey has. It is a full page load that
 * comes back to this screen, so what was being changed has to be done again afterwards.
 */
export function SingleSignOnReauthentication() {
  const providers = useAuthConfig()?.oidc ?? [];
  const { data: identities } = useIdentities();
  const linked = providers.filter((provider) => (identities ?? []).some((identity) => identity.provider === provider.id));
  if (linked.length === 0) return null;
  const here = `${window.location.pathname}${window.location.search}${window.location.hash}`;
  return (
    <div className="single-sign-on reauthenticate-single-sign-on">
      <p className="muted small">Or sign in again through your provider; you will come back to this page and can then make the change.</p>
      {linked.map((provider) => (
        <a key={provider.id} className="button button-block" href={singleSignOnStartPath(provider.id, here)}>
          Sign in again with {provider.name}
        </a>
      ))}
    </div>
  );
}
