import { useEffect, useRef } from 'react';
import { Alert } from './Alert';
import { Button } from './Button';
import { CopyButton } from './CopyButton';
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
      <div className="secret-row">
        <code className="secret" aria-label="New access token">
          {token.token}
        </code>
        <CopyButton text={token.token} label="Copy token" />
      </div>
      <p className="label">Try it</p>
      <div className="secret-row">
        <code className="secret secret-command" aria-label="Example request">
          {example}
        </code>
        <CopyButton text={example} label="Copy command" />
      </div>
      <div className="row row-end">
        <Button variant="primary" onClick={onDone}>
          Done
        </Button>
      </div>
    </section>
  );
}
