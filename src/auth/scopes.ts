/**
 * What a personal access token may be granted. Each is checked on its own: write does not imply
 * read. No imports: the dashboard imports this list too.
 */
export const ACCESS_TOKEN_SCOPES = ['sites:read', 'sites:write'] as const;
export type AccessTokenScope = (typeof ACCESS_TOKEN_SCOPES)[number];
