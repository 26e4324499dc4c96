// The admin API (instance administrators): the user list and what can be done to an account. One function per call.
import { client, dataOf } from './client';

export const fetchAdminUsers = (query: string, cursor: string | null, signal?: AbortSignal) =>
  dataOf(client.GET('/api/v1/admin/users', { params: { query: { ...(query === '' ? {} : { query }), ...(cursor === null ? {} : { cursor }) } }, signal }));
export const disableUser = async (id: string) => (await dataOf(client.POST('/api/v1/admin/users/{id}/disable', { params: { path: { id } } }))).user;
export const enableUser = async (id: string) => (await dataOf(client.POST('/api/v1/admin/users/{id}/enable', { params: { path: { id } } }))).user;
export const endUserSessions = (id: string) => dataOf(client.DELETE('/api/v1/admin/users/{id}/sessions', { params: { path: { id } } }));
