// Personal access tokens (Settings > Access tokens). One function per call.
import { client, dataOf } from './client';
import type { RequestJson } from './types';

export const fetchAccessTokens = async (signal?: AbortSignal) => (await dataOf(client.GET('/api/v1/access-tokens', { signal }))).access_tokens;
export const createAccessToken = async (body: RequestJson<'/api/v1/access-tokens', 'post'>) => (await dataOf(client.POST('/api/v1/access-tokens', { body }))).access_token;
export const revokeAccessToken = (id: string) => dataOf(client.DELETE('/api/v1/access-tokens/{id}', { params: { path: { id } } }));
