/**
 * How the cache learns that the database changed. A change names the rows it touched by tags,
 * `table.column:value` (`sites.id:…`, `sites.user_id:…`, `users.id:…`): the same names cache
 * entries declare they depend on, whichever process made the change.
 */
export function changeTag(table: string, column: string, value: string): string {
  return `${table}.${column}:${value}`;
}

// The tags cache entries depend on, named once, as the PostgreSQL triggers announce them
// (announceChanges, in the migrations from 008 on).

/** What depends on one site: its answers. */
export function siteTag(siteId: string): string {
  return changeTag('sites', 'id', siteId);
}

/** What depends on any of a workspace's sites: the lists that show them. */
export function workspaceSitesTag(workspaceId: string): string {
  return changeTag('sites', 'workspace_id', workspaceId);
}

/**
 * What depends on a user's memberships (which workspaces, which roles): their principal, and
 * every site answer and list kept for them.
 */
export function membershipsTag(userId: string): string {
  return changeTag('workspace_members', 'user_id', userId);
}

/** What depends on a workspace's own row: whether it requires two-factor authentication of its members. */
export function workspaceTag(workspaceId: string): string {
  return changeTag('workspaces', 'id', workspaceId);
}

/** What depends on a user's own row: their principal (disabled, signed out everywhere, deleted). */
export function userTag(userId: string): string {
  return changeTag('users', 'id', userId);
}

/** What depends on one personal access token: its principal (revoked). */
export function accessTokenTag(accessTokenId: string): string {
  return changeTag('access_tokens', 'id', accessTokenId);
}

/** What depends on whether the user has a second factor: their TOTP and their passkeys. */
export function secondFactorTags(userId: string): string[] {
  return [changeTag('user_totp', 'user_id', userId), changeTag('passkeys', 'user_id', userId)];
}

export interface ChangeListener {
  /** Committed changes touched rows named by these tags: what depends on them is out of date. */
  changed(tags: readonly string[]): void;
  /** Anything may have changed (SQLite saw another connection commit; PostgreSQL's listener came back). */
  reset(): void;
}

export interface ChangeFeed {
  /**
   * Whether the cache may answer from and store entries now. Asked before every lookup and store;
   * a feed that learns of changes by asking (SQLite) tells its listener before it answers.
   */
  ready(): boolean;
  listen(listener: ChangeListener): void;
  close(): Promise<void>;
}

/** No feed: nothing is ever answered from the cache or stored in it (CACHE_MB=0). */
export const NO_CHANGE_FEED: ChangeFeed = Object.freeze({
  ready: () => false,
  listen: () => undefined,
  close: async () => undefined,
});

/**
 * SQLite's `PRAGMA data_version`: it moves whenever another connection (another app process, the
 * command line) commits to the file, and never for this process's own commits, which report
 * themselves to the cache directly. It names no rows, so a move means "everything changed".
 *
 * Read at most once per turn of the event loop: reading it is a read transaction (four lock calls
 * to the kernel), and a loaded server reads dozens of requests in one turn. A request is then
 * answered from a counter read in the turn its bytes were read in, so another process's commit is
 * seen by every request read in a later turn; one read in the same turn may miss a commit made
 * while that turn ran.
 */
export class SqliteChangeFeed implements ChangeFeed {
  #listener: ChangeListener | undefined;
  #seen: number;
  #readThisTurn = false;
  readonly #endTurn = (): void => {
    this.#readThisTurn = false;
  };

  constructor(private readonly dataVersion: () => number) {
    this.#seen = dataVersion();
  }

  ready(): boolean {
    if (!this.#readThisTurn) {
      this.#readThisTurn = true;
      // Immediates run at the end of the turn, after every socket read in it was handled.
      setImmediate(this.#endTurn);
      const version = this.dataVersion();
      if (version !== this.#seen) {
        this.#seen = version;
        this.#listener?.reset();
      }
    }
    return true;
  }

  listen(listener: ChangeListener): void {
    this.#listener = listener;
  }

  async close(): Promise<void> {
    this.#listener = undefined;
  }
}
