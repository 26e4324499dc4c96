import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { identityLinkUrl, unlinkIdentity } from '../api/account';
import { errorMessage } from '../api/errors';
import type { Identity, SingleSignOnProvider } from '../api/types';
import { formatDateTime } from '../format';
import { useIdentities } from '../queries';
import { useAuthConfig } from '../singleSignOn';
import { Alert } from './Alert';
import { Button } from './Button';
import { ConfirmDialog } from './ConfirmDialog';
import { LoadFailed } from './LoadFailed';
import { Loading } from './Loading';

/**
 * Settings > Security > Sign-in methods: the single sign-on providers linked to the account, each
 * with Unlink, and a Link button for each provider the server offers that is not linked yet. Both
 * need a recent sign-in, which the confirmation dialog (reauthentication.tsx) asks for when the
 * server says so. Unlinking the last way in is refused by the server with the reason shown here.
 */
export function SignInMethodsSection({ onChanged }: { onChanged: () => void }) {
  const providers = useAuthConfig()?.oidc;
  const identitiesQuery = useIdentities();
  const identities = identitiesQuery.data;
  const loadError = identitiesQuery.error === null ? undefined : errorMessage(identitiesQuery.error);
  const reload = () => identitiesQuery.refetch();
  const [unlinking, setUnlinking] = useState<Identity>();
  const [notice, setNotice] = useState<string>();

  const unlink = useMutation({
    mutationFn: async (identity: Identity) => {
      await unlinkIdentity(identity.provider);
      return identity;
    },
    onSuccess: async (identity) => {
      setNotice(`${providerName(providers, identity.provider)} no longer signs you in.`);
      setUnlinking(undefined);
      onChanged();
      await reload();
    },
  });
  // The server answers the provider's address; the browser goes there and comes back linked.
  const link = useMutation({
    mutationFn: (provider: SingleSignOnProvider) => identityLinkUrl(provider.id),
    onSuccess: (authorizationUrl) => window.location.assign(authorizationUrl),
  });

  // Nothing to show on a server without providers, unless an identity from an earlier configuration is still linked.
  if (providers !== undefined && providers.length === 0 && (identities === undefined || identities.length === 0)) return null;
  const unlinked = (providers ?? []).filter((provider) => !(identities ?? []).some((identity) => identity.provider === provider.id));

  return (
    <section className="card security-card" aria-labelledby="sign-in-methods-title">
      <div className="card-header">
        <div>
          <h2 id="sign-in-methods-title">Sign-in methods</h2>
          <p>Accounts at your organisation’s sign-in providers that sign you in to Siteward. Their own two-factor check stands for Siteward’s.</p>
        </div>
      </div>
      {notice !== undefined && <Alert kind="success">{notice}</Alert>}
      {link.error !== null && <Alert kind="error">{errorMessage(link.error)}</Alert>}
      {loadError !== undefined ? (
        <LoadFailed title="Could not load your sign-in methods" message={loadError} onRetry={() => void reload()} />
      ) : identities === undefined ? (
        <Loading label="Loading sign-in methods…" />
      ) : (
        <>
          {identities.length === 0 ? (
            <p className="muted">No sign-in provider is linked to your account.</p>
          ) : (
            <ul className="list" aria-label="Linked sign-in providers">
              {identities.map((identity) => (
                <li key={identity.provider}>
                  <div className="list-main">
                    <strong>{providerName(providers, identity.provider)}</strong>
                    <span className="muted small">
                      {identity.email ?? 'No address given'} · Linked <time dateTime={identity.linked_at}>{formatDateTime(identity.linked_at)}</time>
                    </span>
                  </div>
                  <Button variant="ghost" onClick={() => setUnlinking(identity)} aria-label={`Unlink ${providerName(providers, identity.provider)}`}>
                    Unlink
                  </Button>
                </li>
              ))}
            </ul>
          )}
          {unlinked.length > 0 && (
            <div className="row">
              {unlinked.map((provider) => (
                <Button key={provider.id} onClick={() => link.mutate(provider)} busy={link.isPending && link.variables?.id === provider.id} disabled={link.isPending}>
                  Link {provider.name}
                </Button>
              ))}
            </div>
          )}
        </>
      )}
      <ConfirmDialog
        open={unlinking !== undefined}
        title={`Unlink ${unlinking === undefined ? 'this provider' : providerName(providers, unlinking.provider)}?`}
        confirmLabel="Unlink"
        danger
        busy={unlink.isPending}
        onConfirm={() => {
          if (unlinking !== undefined) unlink.mutate(unlinking);
        }}
        onCancel={() => {
          setUnlinking(undefined);
          unlink.reset();
        }}
      >
        <p>Your account there will no longer sign you in to Siteward. You can link it again later.</p>
        {unlink.error !== null && <Alert kind="error">{errorMessage(unlink.error)}</Alert>}
      </ConfirmDialog>
    </section>
  );
}

/** The provider's button text, or its id when the server no longer offers it. */
function providerName(providers: SingleSignOnProvider[] | undefined, id: string): string {
  return providers?.find((provider) => provider.id === id)?.name ?? id;
}
