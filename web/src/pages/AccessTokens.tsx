import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../api/errors';
import type { AccessToken } from '../api/types';
import { AccessTokenCreateForm, type CreatedAccessToken } from '../components/AccessTokenCreateForm';
import { AccessTokenList } from '../components/AccessTokenList';
import { AccessTokenSecret } from '../components/AccessTokenSecret';
import { Alert } from '../components/Alert';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { LoadFailed } from '../components/LoadFailed';
import { Loading } from '../components/Loading';
import { useLeaveGuard } from '../router';
import { accessTokensQuery, useAccessTokens, useWorkspaces } from '../queries';
import { useToasts } from '../toasts';
import { useTitle } from '../useTitle';
import { revokeAccessToken } from '../api/accessTokens';

/** Settings > Access tokens: personal access tokens for integrations (Authorization: Token …). */
export function AccessTokensPage() {
  useTitle('Access tokens');
  const queryClient = useQueryClient();
  const tokenList = useAccessTokens();
  const tokens = tokenList.data;
  const loadError = tokenList.isError ? errorMessage(tokenList.error) : undefined;
  const workspaces = useWorkspaces();
  const workspaceNames = new Map((workspaces.data ?? []).map((workspace) => [workspace.id, workspace.name]));
  const [created, setCreated] = useState<CreatedAccessToken>();
  const [revoking, setRevoking] = useState<AccessToken>();
  const [notice, setNotice] = useState<string>();
  const toasts = useToasts();
  const revoke = useMutation({
    mutationFn: (token: AccessToken) => revokeAccessToken(token.id),
    onSuccess: (_answer, token) => setNotice(`Revoked “${token.name}”. Requests with it are refused from now on.`),
    // Not revoked after all: the list shows it again, and the reason is said.
    onError: (error, token) => {
      setNotice(`“${token.name}” was not revoked: ${errorMessage(error)}`);
      void queryClient.invalidateQueries({ queryKey: accessTokensQuery().queryKey });
    },
  });

  /**
   * The server cannot un-revoke a token, so revoking waits for the notice to end: until then
   * Undo simply keeps it (docs/decisions/dashboard-toasts-and-undo.md). The row goes at once.
   */
  function revokeWithUndo(token: AccessToken) {
    setRevoking(undefined);
    setNotice(undefined);
    if (created?.id === token.id) setCreated(undefined);
    updateTokens((current) => current.filter((each) => each.id !== token.id));
    toasts.show({
      message: `“${token.name}” will be revoked when this notice closes.`,
      action: { label: 'Undo', run: () => void queryClient.invalidateQueries({ queryKey: accessTokensQuery().queryKey }) },
      onExpire: () => revoke.mutate(token),
    });
  }

  /** The list as the server now holds it, without asking again. */
  function updateTokens(change: (current: AccessToken[]) => AccessToken[]) {
    queryClient.setQueryData(accessTokensQuery().queryKey, (current) => (current === undefined ? current : change(current)));
  }

  // Leaving while the secret is on screen loses it for good: ask first.
  useLeaveGuard(created !== undefined, 'Your new token has not been dismissed and will not be shown again. Leave anyway?');

  function tokenCreated(token: CreatedAccessToken) {
    setNotice(undefined);
    setCreated(token);
    updateTokens((current) => [withoutSecret(token), ...current]);
  }

  function secretDismissed() {
    setCreated(undefined);
    // The panel that held focus is gone; continue at the list, where the new token now sits.
    document.getElementById('token-list-title')?.focus();
  }

  function askToRevoke(token: AccessToken) {
    revoke.reset();
    setRevoking(token);
  }

  return (
    <>
      <div className="page-header">
        <div>
          <h1>Access tokens</h1>
          <p>
            Personal access tokens let scripts and integrations use the Siteward API as you. Send one in the <code>Authorization: Token …</code> header.
          </p>
        </div>
      </div>

      {created !== undefined && <AccessTokenSecret token={created} onDone={secretDismissed} />}

      <section className="card" aria-labelledby="token-create-title">
        <div className="card-header">
          <div>
            <h2 id="token-create-title">Create a token</h2>
            <p>Tokens do not expire. Give each integration its own, with only the scopes it needs, and revoke it when it is no longer used.</p>
          </div>
        </div>
        <AccessTokenCreateForm workspaces={workspaces.data} onCreated={tokenCreated} />
      </section>

      <section className="card" aria-labelledby="token-list-title">
        <div className="card-header">
          <div>
            <h2 id="token-list-title" tabIndex={-1}>
              Your tokens
            </h2>
            <p>Siteward keeps only a hash of each token and its last four characters, shown here to match a token an integration uses.</p>
          </div>
        </div>
        {notice !== undefined && <Alert kind="success">{notice}</Alert>}
        <TokenListBody tokens={tokens} workspaceNames={workspaceNames} loadError={loadError} onRetry={() => void tokenList.refetch()} onRevoke={askToRevoke} />
      </section>

      <ConfirmDialog
        open={revoking !== undefined}
        title={`Revoke “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke token"
        danger
        onConfirm={() => revoking !== undefined && revokeWithUndo(revoking)}
        onCancel={() => setRevoking(undefined)}
      >
        <p>
          Anything using the token ending in <code>{revoking?.last_four}</code> stops working. You can undo this for a few seconds; after that it cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}

/** The list shows what any token shows; the secret stays in the one-time panel alone. */
function withoutSecret(token: CreatedAccessToken): AccessToken {
  return { id: token.id, name: token.name, scopes: token.scopes, last_four: token.last_four, created_at: token.created_at, last_used_at: token.last_used_at, workspace_id: token.workspace_id };
}

interface TokenListBodyProps {
  tokens: AccessToken[] | undefined;
  workspaceNames: ReadonlyMap<string, string>;
  loadError: string | undefined;
  onRetry: () => void;
  onRevoke: (token: AccessToken) => void;
}

function TokenListBody({ tokens, workspaceNames, loadError, onRetry, onRevoke }: TokenListBodyProps) {
  if (loadError !== undefined) {
    return (
      <LoadFailed title="The tokens could not be loaded" message={loadError} onRetry={onRetry} />
    );
  }
  if (tokens === undefined) return <Loading label="Loading tokens…" />;
  if (tokens.length === 0) {
    return (
      <div className="empty token-empty">
        <h3>No access tokens yet</h3>
        <p>
          Create one for each script or integration that calls the API, such as a deploy job or a CMS sync. It sends the token as <code>Authorization: Token …</code>; you
          can revoke it here at any time.
        </p>
      </div>
    );
  }
  return <AccessTokenList tokens={tokens} workspaceNames={workspaceNames} onRevoke={onRevoke} />;
}
