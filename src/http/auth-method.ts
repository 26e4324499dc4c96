/**
 * The kinds of credential a caller can present. No imports: the request log, below every
 * feature, names the kind on each line.
 */
export type AuthMethod = 'jwt' | 'access_token' | 'session';
