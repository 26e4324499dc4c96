/**
 * The kinds of credential a caller can present. No imports: the request log (http/), below every
 * feature, names the kind on each line, and the principal (auth/) carries it.
 */
export type AuthMethod = 'jwt' | 'access_token' | 'session';
