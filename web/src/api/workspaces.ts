// Workspaces, their members, invitations and audit log. One function per call.
import { client, dataOf } from './client';
import type { paths } from './schema';
import type { RequestJson } from './types';

const path = (id: string) => ({ params: { path: { id } } });

export const fetchWorkspaces = async (signal?: AbortSignal) => (await dataOf(client.GET('/api/v1/workspaces', { signal }))).workspaces;
export const createWorkspace = async (name: string) => (await dataOf(client.POST('/api/v1/workspaces', { body: { name } }))).workspace;
export const renameWorkspace = async (id: string, name: string) => (await dataOf(client.PATCH('/api/v1/workspaces/{id}', { ...path(id), body: { name } }))).workspace;
/** Owners: whether every member must have a second factor to open the workspace. */
export const setWorkspaceTwoFactorRequirement = async (id: string, required: boolean) =>
  (await dataOf(client.PATCH('/api/v1/workspaces/{id}', { ...path(id), body: { require_two_factor: required } }))).workspace;
/** Admins and owners: whether changes to the workspace's sites go through review, and how many approvals they need. */
export const setWorkspaceReviewPolicy = async (id: string, review: { required: boolean; approvals: number }) =>
  (await dataOf(client.PATCH('/api/v1/workspaces/{id}', { ...path(id), body: { review } }))).workspace;
export const deleteWorkspace = (id: string) => dataOf(client.DELETE('/api/v1/workspaces/{id}', path(id)));

export const fetchMembers = async (id: string, signal?: AbortSignal) => (await dataOf(client.GET('/api/v1/workspaces/{id}/members', { ...path(id), signal }))).members;
export const changeMemberRole = async (id: string, userId: string, role: RequestJson<'/api/v1/workspaces/{id}/members/{user_id}', 'patch'>['role']) =>
  (await dataOf(client.PATCH('/api/v1/workspaces/{id}/members/{user_id}', { params: { path: { id, user_id: userId } }, body: { role } }))).member;
/** Removes a member, or, with one's own id, leaves the workspace. */
export const removeMember = (id: string, userId: string) => dataOf(client.DELETE('/api/v1/workspaces/{id}/members/{user_id}', { params: { path: { id, user_id: userId } } }));

export const fetchInvitations = async (id: string, signal?: AbortSignal) => (await dataOf(client.GET('/api/v1/workspaces/{id}/invitations', { ...path(id), signal }))).invitations;
/** Invites an address; inviting it again replaces its pending invitation (a new link). */
export const sendInvitation = async (id: string, body: RequestJson<'/api/v1/workspaces/{id}/invitations', 'post'>) =>
  (await dataOf(client.POST('/api/v1/workspaces/{id}/invitations', { ...path(id), body }))).invitation;
export const withdrawInvitation = (id: string, invitationId: string) =>
  dataOf(client.DELETE('/api/v1/workspaces/{id}/invitations/{invitation_id}', { params: { path: { id, invitation_id: invitationId } } }));

/** The audit log's filters: a kind of change, a person. */
export type AuditLogFilterQuery = Pick<NonNullable<paths['/api/v1/workspaces/{id}/audit-log']['get']['parameters']['query']>, 'action' | 'actor_id'>;

export const fetchAuditLog = (id: string, filter: AuditLogFilterQuery, cursor: string | null, limit: number, signal?: AbortSignal) =>
  dataOf(client.GET('/api/v1/workspaces/{id}/audit-log', { params: { path: { id }, query: { ...filter, limit, ...(cursor === null ? {} : { cursor }) } }, signal }));

/** Every matching event, one JSON object a line, for a download. */
export const exportAuditLog = (id: string, filter: AuditLogFilterQuery) =>
  dataOf(client.GET('/api/v1/workspaces/{id}/audit-log', { params: { path: { id }, query: filter }, headers: { accept: 'application/x-ndjson' }, parseAs: 'text' }));
