import type { UserRow } from '../users/queries.js';
import type { WorkspaceRole } from '../workspaces/contract.js';
import type { AccessTokenScope } from './scopes.js';

export type AuthMethod = 'jwt' | 'access_token' | 'session';

/** Who is calling, and with which credential. */
export interface Principal {
  user: UserRow;
  method: AuthMethod;
  scopes: readonly AccessTokenScope[];
  accessTokenId: string | null;
  sessionId: string | null;
  /**
   * When the person behind the credential last proved who they are (epoch milliseconds): the
   * session's authenticated_at or the JWT's auth_time; null for a personal access token.
   */
  authenticatedAt: number | null;
  /**
   * The workspaces the user belongs to, and their role in each, as last read (kept with the
   * principal, dropped when a membership of the user changes). Writes read the role afresh.
   */
  memberships: ReadonlyMap<string, WorkspaceRole>;
  /**
   * The one workspace the credential reaches (an access token made for it); null for every
   * workspace of the user. `memberships` then holds that workspace alone.
   */
  workspaceId: string | null;
}
