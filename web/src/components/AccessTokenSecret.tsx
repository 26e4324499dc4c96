import { useEffect, useRef } from 'react';
import { Alert } from './Alert';
import { Button } from './Button';
import { CopyableValue } from './CopyableValue';
import type { CreatedAccessToken } from './AccessTokenCreateForm';

/**
 * The new token's secret, shown this once: the server keeps only its hash. "Done" drops it from
 * memory, so nothing on the screen or in React state can show it again.
 */
export function AccessTokenSecret({ token, onDone }: { token: CreatedAccessToken; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Move focus to the panel, so keyboard and screen-reader users land on the secret at once.
  useEffect(() => heading.current?.focus(), []);
  const example = `curl -H "Authorization: Token ${token.token}" ${window.location.origin}/api/v1/sites`;
  return (
    <section className="card token-secret" aria-labelledby="token-secret-title">
      <h2 id="token-secret-title" ref={heading} tabIndex={-1}>
        Your new token “{token.name}”
      </h2>
      <Alert kind="warning">Copy it now and keep it somewhere safe. It will not be shown again: if you lose it, revoke it and create a new one.</Alert>
      <CopyableValue value={token.token} label="New access token" copyLabel="Copy token" />
      <p className="label">Try it</p>
      <CopyableValue value={example} label="Example request" copyLabel="Copy command" command />
      <div className="row row-end">
        <Button variant="primary" onClick={onDone}>
          Done
        </Button>
      </div>
    </section>
  );
}
