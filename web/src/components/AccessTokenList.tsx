import type { AccessToken } from '../api/types';
import { formatDateTime, formatRelative } from '../format';
import { Button } from './Button';

/** A timestamp as people read it ("3 minutes ago"), with the exact time on hover and for machines. */
function When({ value, empty }: { value: string | null; empty: string }) {
  if (value === null) return <span>{empty}</span>;
  return (
    <time dateTime={value} title={formatDateTime(value)}>
      {formatRelative(value)}
    </time>
  );
}

/** The owner's tokens: name, the workspace each reaches, scopes, the last four characters to match a token in use, and activity. */
export function AccessTokenList({ tokens, workspaceNames, onRevoke }: { tokens: AccessToken[]; workspaceNames: ReadonlyMap<string, string>; onRevoke: (token: AccessToken) => void }) {
  return (
    <ul className="list token-list">
      {tokens.map((token) => (
        <li key={token.id}>
          <div className="list-main">
            <strong>{token.name}</strong>
            <div className="token-meta">
              <span className="mono token-last-four" title="The token's last four characters">
                swd_…{token.last_four}
              </span>
              <span className="badge token-workspace">
                {token.workspace_id === null ? 'All my workspaces' : (workspaceNames.get(token.workspace_id) ?? 'A workspace')}
              </span>
              {token.scopes.map((scope) => (
                <span key={scope} className="badge badge-accent">
                  {scope}
                </span>
              ))}
            </div>
            <div className="token-dates small muted">
              <span>
                Created <When value={token.created_at} empty="—" />
              </span>
              <span>
                Last used <When value={token.last_used_at} empty="never" />
              </span>
            </div>
          </div>
          <Button variant="secondary" className="button-danger-outline" onClick={() => onRevoke(token)} aria-label={`Revoke ${token.name}`}>
            Revoke
          </Button>
        </li>
      ))}
    </ul>
  );
}
