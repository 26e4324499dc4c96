import type { Kysely } from 'kysely';
import { COMMAND_LINE } from '../audit/origin.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { WORKSPACE_ERRORS } from '../memberships/errors.js';
import { SETTINGS_FIELDS } from '../sites/contract.js';
import { checkSiteInput, type PartnerSettingsUpdate, type SiteUpdate } from '../sites/schema.js';
import { siteToJson } from '../sites/presenter.js';
import type { OperatorChange, SiteService } from '../sites/service.js';
import { SITE_FILE_FORMAT, SITE_FILE_FORMAT_VERSION, type SiteFileEntryJson, SiteFileError, type SiteFileJson } from './format.js';

/** The partner settings a file carries and an import writes; the rest is status the server keeps. */
const PARTNER_FIELDS = ['enabled', 'base_url', 'mcp_url', 'project_id', 'auth_type', 'read_enabled', 'write_enabled', 'collections', 'widget_project_id', 'widget_search_sources'] as const;

/** What importing one site of the file does. */
export type SiteImportStep =
  | { kind: 'create'; index: number; name: string; input: SiteUpdate & { name: string } }
  | { kind: 'update'; index: number; id: string; name: string; fields: string[]; input: SiteUpdate; version: number | null }
  | { kind: 'unchanged'; index: number; id: string; name: string }
  | { kind: 'conflict'; index: number; id: string; name: string; fileVersion: number | undefined; currentVersion: number };

export interface SiteFilesDeps {
  db: Kysely<Database>;
  sites: SiteService;
  clock: Clock;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A workspace's sites as a file, and a file applied back: configuration as code. The operator's
 * command line runs it with the database's full rights; each change is a version of its site made
 * "via the command line", as any change is recorded.
 */
export class SiteFiles {
  constructor(private readonly deps: SiteFilesDeps) {}

  async #assertWorkspace(workspaceId: string): Promise<void> {
    const found = await this.deps.db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst();
    if (found === undefined) throw new AppError(404, WORKSPACE_ERRORS.WORKSPACE_NOT_FOUND, `No workspace with the id ${workspaceId}.`);
  }

  #liveSites(workspaceId: string) {
    return this.deps.db.selectFrom('sites').selectAll().where('workspace_id', '=', workspaceId).where('deleted_at', 'is', null).orderBy('id').execute();
  }

  /** The workspace's live sites, oldest first, each with its version; never a partner token. */
  async export(workspaceId: string): Promise<SiteFileJson> {
    await this.#assertWorkspace(workspaceId);
    const rows = await this.#liveSites(workspaceId);
    return {
      format: SITE_FILE_FORMAT,
      format_version: SITE_FILE_FORMAT_VERSION,
      workspace_id: workspaceId,
      exported_at: this.deps.clock.now().toISOString(),
      sites: rows.map((row) => {
        const { partner_settings: partner, ...site } = siteToJson(row);
        const { access_token_configured: _configured, last_status: _status, last_error: _error, last_checked_at: _checked, ...settings } = partner;
        return { ...site, partner_settings: settings, version: row.version };
      }),
    };
  }

  /**
   * What importing the file would do, site by site: a site of the file whose id is a live site of
   * the workspace is updated (a conflict when it is no longer at the file's version, unless
   * `force`); any other is created anew. Sites of the workspace the file does not name are left.
   */
  async plan(workspaceId: string, file: SiteFileJson, force: boolean): Promise<SiteImportStep[]> {
    await this.#assertWorkspace(workspaceId);
    const current = new Map((await this.#liveSites(workspaceId)).map((row) => [row.id, row]));
    return file.sites.map((entry, index): SiteImportStep => {
      const row = entry.id === undefined || typeof entry.id !== 'string' ? undefined : current.get(entry.id);
      const input = importable(entry);
      if (row === undefined) {
        if (entry.name === undefined) throw new SiteFileError(`/sites/${index}/name: a site to create needs a name`);
        checkEntry(index, { ...input, name: entry.name });
        return { kind: 'create', index, name: entry.name, input: { ...input, name: entry.name } };
      }
      const shown = siteToJson(row);
      const changed: SiteUpdate = {};
      const fields: string[] = [];
      if (input.name !== undefined && input.name !== shown.name) (changed.name = input.name), fields.push('name');
      if (input.color !== undefined && input.color.toLowerCase() !== shown.color) (changed.color = input.color), fields.push('color');
      for (const field of SETTINGS_FIELDS) {
        const value = input[field];
        if (value !== undefined && value !== shown[field]) (changed[field] = value), fields.push(field);
      }
      const partner: PartnerSettingsUpdate = {};
      for (const field of PARTNER_FIELDS) {
        const value = input.partner_settings?.[field];
        if (value !== undefined && !same(value, shown.partner_settings[field])) {
          Object.assign(partner, { [field]: value });
          fields.push(`partner_settings.${field}`);
        }
      }
      if (Object.keys(partner).length > 0) changed.partner_settings = partner;
      if (fields.length === 0) return { kind: 'unchanged', index, id: row.id, name: row.name };
      checkEntry(index, changed);
      if (!force && entry.version !== row.version) return { kind: 'conflict', index, id: row.id, name: row.name, fileVersion: entry.version, currentVersion: row.version };
      return { kind: 'update', index, id: row.id, name: row.name, fields, input: changed, version: force ? null : row.version };
    });
  }

  /**
   * Applies a plan without conflicts in one transaction: every site of it changes, each as its
   * next version, or none does (a site that moved on since the plan was read is refused: 412).
   * While the workspace requires review, only with `bypassReview`. Resolves the ids of the sites
   * created, in the order of the file.
   */
  async apply(workspaceId: string, steps: readonly SiteImportStep[], { bypassReview }: { bypassReview: boolean }): Promise<Array<{ index: number; id: string }>> {
    if (steps.some((step) => step.kind === 'conflict')) throw new SiteFileError('the file conflicts with the workspace; nothing was changed');
    const writes = steps.filter((step) => step.kind === 'create' || step.kind === 'update');
    const changes = writes.map((step): OperatorChange =>
      step.kind === 'create' ? { kind: 'create', input: step.input } : { kind: 'update', id: step.id, input: step.input, expectedVersion: step.version },
    );
    const saved = await this.deps.sites.applyAsOperator(COMMAND_LINE, workspaceId, changes, { bypassReview });
    if (saved.length !== writes.length) throw new Error(`${String(writes.length)} sites were written but ${String(saved.length)} came back`);
    return writes.flatMap((step, position) => {
      const site = saved[position];
      return step.kind === 'create' && site !== undefined ? [{ index: step.index, id: site.id }] : [];
    });
  }
}

/** The rules a PUT's body meets beyond its schema, told in the file's words: `/sites/2/name: must not be blank`. */
function checkEntry(index: number, input: SiteUpdate): void {
  try {
    checkSiteInput(input);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw new SiteFileError(error.detail.split('; ').map((part) => `/sites/${index}${part}`).join('; '));
  }
}

/** The fields of a file's site an import writes: what the API's PUT takes, without the partner token or read-only status. */
function importable(entry: SiteFileEntryJson): SiteUpdate {
  const input: SiteUpdate = {};
  if (entry.name !== undefined) input.name = entry.name;
  if (entry.color !== undefined) input.color = entry.color;
  for (const field of SETTINGS_FIELDS) {
    const value = entry[field];
    if (value !== undefined) input[field] = value;
  }
  if (entry.partner_settings !== undefined) {
    const partner: PartnerSettingsUpdate = {};
    for (const field of PARTNER_FIELDS) {
      const value = entry.partner_settings[field];
      if (value !== undefined) Object.assign(partner, { [field]: value });
    }
    input.partner_settings = partner;
  }
  return input;
}
