/** The workspace API's plain limits. No imports: the dashboard's forms read them from here. */

/** Characters of a workspace's name, after trimming. */
export const WORKSPACE_NAME_MAX_LENGTH = 100;
