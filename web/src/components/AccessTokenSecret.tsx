import { Alert } from './Alert';
import { CopyableValue } from './CopyableValue';
import { OneTimeSecretPanel } from './OneTimeSecretPanel';
import type { CreatedAccessToken } from './AccessTokenCreateForm';

/** The new token's secret, shown this once: the server keeps only its hash. */
export function AccessTokenSecret({ token, onDone }: { token: CreatedAccessToken; onDone: () => void }) {
  const example = `curl -H "Authorization: Token ${token.token}" ${window.location.origin}/api/v1/sites`;
  return (
    <OneTimeSecretPanel titleId="token-secret-title" title={`Your new token “${token.name}”`} onDone={onDone}>
      <Alert kind="warning">Copy it now and keep it somewhere safe. It will not be shown again: if you lose it, revoke it and create a new one.</Alert>
      <CopyableValue value={token.token} label="New access token" copyLabel="Copy token" />
      <p className="label">Try it</p>
      <CopyableValue value={example} label="Example request" copyLabel="Copy command" command />
    </OneTimeSecretPanel>
  );
}
