// Sites, their versions, the trash and partner checks. One function per call.
import type { SiteListQuery } from '../siteList';
import { answer, client, dataOf, quietClient } from './client';
import type { RequestJson, Site } from './types';

/** A page of the sites list as light summaries (`fields=summary`), for the list screen. */
export async function fetchSiteSummaries(query: SiteListQuery, signal?: AbortSignal, options: { quiet?: boolean } = {}) {
  const parameters = {
    fields: 'summary' as const,
    sort: query.sort,
    limit: query.limit,
    ...(query.workspaceId === null ? {} : { workspace_id: query.workspaceId }),
    ...(query.q === '' ? {} : { q: query.q }),
    ...(query.cursor === null ? {} : { cursor: query.cursor }),
  };
  // Quiet: the list's early start, before anyone knows whether a session exists, asks no one to sign in.
  const data = await dataOf((options.quiet === true ? quietClient : client).GET('/api/v1/sites', { params: { query: parameters }, signal }));
  if (!('total' in data)) throw new Error('The server answered full sites where summaries were asked for.');
  return data;
}

/** A site as the editor loads it, with the version it was loaded at. */
export interface LoadedSite {
  site: Site;
  /** Sent as If-Match so no one's save is overwritten unseen. */
  etag: string | null;
}

const path = (id: string) => ({ params: { path: { id } } });
const ifMatch = (etag: string | null) => (etag === null ? {} : { headers: { 'if-match': etag } });

export async function fetchSite(id: string, signal?: AbortSignal): Promise<LoadedSite> {
  const { data, response } = await answer(client.GET('/api/v1/sites/{id}', { ...path(id), signal }));
  return { site: data.site, etag: response.headers.get('etag') };
}

export const createSite = async (body: RequestJson<'/api/v1/sites', 'post'>) => (await dataOf(client.POST('/api/v1/sites', { body }))).site;

/** Saves the changed fields over the version the form holds; another save in between is 412. */
export async function updateSite(id: string, changes: RequestJson<'/api/v1/sites/{id}', 'put'>, etag: string | null): Promise<LoadedSite> {
  const { data, response } = await answer(client.PUT('/api/v1/sites/{id}', { ...path(id), body: changes, ...ifMatch(etag) }));
  return { site: data.site, etag: response.headers.get('etag') };
}

export const deleteSite = (id: string) => dataOf(client.DELETE('/api/v1/sites/{id}', path(id)));

export const fetchSiteVersions = (id: string, cursor: string | null, limit: number, signal?: AbortSignal) =>
  dataOf(client.GET('/api/v1/sites/{id}/versions', { params: { path: { id }, query: { limit, ...(cursor === null ? {} : { cursor }) } }, signal }));

export async function restoreSiteVersion(id: string, version: number, etag: string | null) {
  const { data, response } = await answer(client.POST('/api/v1/sites/{id}/versions/{version}/restore', { params: { path: { id, version } }, ...ifMatch(etag) }));
  return { ...data, etag: response.headers.get('etag') };
}

export async function checkPartnerConnection(id: string) {
  const { data, response } = await answer(client.POST('/api/v1/sites/{id}/partner/check', path(id)));
  return { site: data.site, etag: response.headers.get('etag') };
}

/** The Install section: the snippet, the public key (and the previous one while it still works), where it was fetched from. */
export const fetchSiteInstall = async (id: string, signal?: AbortSignal) => (await dataOf(client.GET('/api/v1/sites/{id}/install', { ...path(id), signal }))).install;

/** A new public key; the previous one keeps working for a day. Moves the site's ETag. */
export async function rotatePublicKey(id: string) {
  const { data, response } = await answer(client.POST('/api/v1/sites/{id}/public-key/rotate', path(id)));
  return { site: data.site, etag: response.headers.get('etag') };
}

export const fetchPartnerChecks = async (id: string, signal?: AbortSignal) => (await dataOf(client.GET('/api/v1/sites/{id}/partner/checks', { ...path(id), signal }))).checks;
export const testPartnerSettings = async (id: string, body: RequestJson<'/api/v1/sites/{id}/partner/test', 'post'>) =>
  (await dataOf(client.POST('/api/v1/sites/{id}/partner/test', { ...path(id), body }))).check;

export const fetchTrash = (cursor: string | null, limit: number, signal?: AbortSignal) =>
  dataOf(client.GET('/api/v1/trash', { params: { query: { limit, ...(cursor === null ? {} : { cursor }) } }, signal }));
export const restoreFromTrash = async (siteId: string) => (await dataOf(client.POST('/api/v1/trash/{site_id}/restore', { params: { path: { site_id: siteId } } }))).site;
