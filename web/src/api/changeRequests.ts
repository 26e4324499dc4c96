// Change requests: a proposed change of a site, reviewed before it goes live. One function per call.
import type { ChangeRequestStatus, ConflictResolution } from '@server/change-requests/contract';
import { client, dataOf } from './client';
import type { RequestJson, ResponseJson } from './types';

export type ChangeRequest = ResponseJson<'/api/v1/sites/{id}/change-requests/{cr_id}', 'get'>['change_request'];
export type ChangeRequestCreate = RequestJson<'/api/v1/sites/{id}/change-requests', 'post'>;
export type ChangeRequestUpdate = RequestJson<'/api/v1/sites/{id}/change-requests/{cr_id}', 'patch'>;

const site = (id: string) => ({ params: { path: { id } } });
const request = (id: string, crId: string) => ({ params: { path: { id, cr_id: crId } } });

/** The review queue of a workspace: requests open or scheduled on its live sites, newest first. */
export const fetchReviewQueue = async (workspaceId: string, signal?: AbortSignal) =>
  (await dataOf(client.GET('/api/v1/change-requests', { params: { query: { workspace_id: workspaceId } }, signal }))).change_requests;

/** Every request of a site, newest first (at most 100). */
export const fetchSiteChangeRequests = async (siteId: string, status: ChangeRequestStatus | undefined, signal?: AbortSignal) =>
  (await dataOf(client.GET('/api/v1/sites/{id}/change-requests', { params: { path: { id: siteId }, query: status === undefined ? {} : { status } }, signal }))).change_requests;

export const fetchChangeRequest = async (siteId: string, crId: string, signal?: AbortSignal) =>
  (await dataOf(client.GET('/api/v1/sites/{id}/change-requests/{cr_id}', { ...request(siteId, crId), signal }))).change_request;

/** Proposes the editor's changes (a PUT body) against the version it holds (`etag`, sent as If-Match: 412 once the site moved on). */
export const openChangeRequest = async (siteId: string, body: ChangeRequestCreate, etag: string | null) =>
  (await dataOf(client.POST('/api/v1/sites/{id}/change-requests', { ...site(siteId), body, ...(etag === null ? {} : { headers: { 'if-match': etag } }) }))).change_request;

/** The author edits an open request; every approval is withdrawn. */
export const updateChangeRequest = async (siteId: string, crId: string, body: ChangeRequestUpdate) =>
  (await dataOf(client.PATCH('/api/v1/sites/{id}/change-requests/{cr_id}', { ...request(siteId, crId), body }))).change_request;

export const commentOnChangeRequest = async (siteId: string, crId: string, body: string) =>
  (await dataOf(client.POST('/api/v1/sites/{id}/change-requests/{cr_id}/comments', { ...request(siteId, crId), body: { body } }))).change_request;

export const approveChangeRequest = async (siteId: string, crId: string) => (await dataOf(client.POST('/api/v1/sites/{id}/change-requests/{cr_id}/approve', request(siteId, crId)))).change_request;

export const declineChangeRequest = async (siteId: string, crId: string, comment: string | undefined) =>
  (await dataOf(client.POST('/api/v1/sites/{id}/change-requests/{cr_id}/decline', { ...request(siteId, crId), body: comment === undefined ? {} : { comment } }))).change_request;

export const closeChangeRequest = async (siteId: string, crId: string) => (await dataOf(client.POST('/api/v1/sites/{id}/change-requests/{cr_id}/close', request(siteId, crId)))).change_request;

/** Applies now (settling conflicting paths with `resolve`), or schedules it for `at` (ISO 8601). */
export const applyChangeRequest = async (siteId: string, crId: string, body: { at?: string; resolve?: Record<string, ConflictResolution> }) =>
  (await dataOf(client.POST('/api/v1/sites/{id}/change-requests/{cr_id}/apply', { ...request(siteId, crId), body }))).change_request;
