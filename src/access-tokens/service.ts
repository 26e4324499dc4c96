import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError, validationError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { ACCESS_TOKEN_SCOPES, type AccessTokenScope } from '../auth/scopes.js';
import { generateAccessToken, hashAccessToken } from '../auth/tokens.js';
import { type AccessTokenRow, countAccessTokens, deleteAccessToken, insertAccessToken, listAccessTokens } from './queries.js';
import { accessTokenToJson } from './presenter.js';
import type { AccessTokenJson, CreatedAccessTokenJson } from './schema.js';
import { ACCESS_TOKEN_ERRORS } from './errors.js';
import { workspaceNotFound } from '../memberships/permissions.js';
import { findRole } from '../memberships/queries.js';

/** A generous ceiling, so a script gone wrong cannot fill the table. */
export const MAX_ACCESS_TOKENS_PER_USER = 100;

export class AccessTokenService {
  /** Told a token's id after its revocation has committed (the guard's cache of credentials). */
  readonly #revocationListeners: Array<(accessTokenId: string) => void> = [];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Called with the id of every token revoked, so an in-process cache forgets it before the next request. */
  onRevoked(listener: (accessTokenId: string) => void): void {
    this.#revocationListeners.push(listener);
  }

  /**
   * Creates a token and returns it with its secret, which is never readable again. A token limited
   * to a workspace reaches that one only, with its user's role there, for as long as they are a
   * member; it is deleted with the workspace.
   */
  async create(userId: string, input: { name: string; scopes?: AccessTokenScope[] | undefined; workspace_id?: string | null | undefined }): Promise<CreatedAccessTokenJson> {
    const name = input.name.trim();
    if (name === '') throw validationError([{ path: '/name', message: 'must not be blank' }]);
    const workspaceId = input.workspace_id ?? null;
    if (workspaceId !== null && (await findRole(this.db, workspaceId, userId)) === undefined) throw workspaceNotFound();
    if ((await countAccessTokens(this.db, userId)) >= MAX_ACCESS_TOKENS_PER_USER) {
      throw new AppError(409, ACCESS_TOKEN_ERRORS.TOO_MANY_ACCESS_TOKENS, `An account can hold at most ${MAX_ACCESS_TOKENS_PER_USER} access tokens; revoke one first.`);
    }
    const scopes = ACCESS_TOKEN_SCOPES.filter((scope) => input.scopes === undefined || input.scopes.includes(scope));
    const token = generateAccessToken();
    const now = this.clock.now();
    const row: AccessTokenRow = {
      id: newId(now),
      user_id: userId,
      name,
      token_hash: hashAccessToken(token),
      last_four: token.slice(-4),
      scopes: scopes.join(' '),
      workspace_id: workspaceId,
      created_at: now.toISOString(),
      last_used_at: null,
    };
    await insertAccessToken(this.db, row);
    return { ...accessTokenToJson(row), token };
  }

  async list(userId: string): Promise<AccessTokenJson[]> {
    return (await listAccessTokens(this.db, userId)).map(accessTokenToJson);
  }

  /**
   * Revokes at once: the next request with the token is refused. Another user's token is 404.
   * Answers the token's name, for the owner's notice.
   */
  async revoke(userId: string, id: string): Promise<{ name: string }> {
    const name = await deleteAccessToken(this.db, userId, id);
    if (name === undefined) throw new AppError(404, ACCESS_TOKEN_ERRORS.ACCESS_TOKEN_NOT_FOUND, 'No access token with this id.');
    for (const listener of this.#revocationListeners) listener(id);
    return { name };
  }
}
