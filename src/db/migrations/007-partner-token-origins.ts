import { type Kysely, sql } from 'kysely';

/**
 * The partner access token is bound to the origins of base_url and mcp_url it was saved with
 * (sites/partner-settings.ts). A token saved before this migration was saved with the URLs the
 * site has now, so it is bound to those: nothing changes for its owner, and a later change of
 * either origin clears it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sites').addColumn('partner_token_origins', 'text').execute();

  const rows = await sql<{ id: string; partner_settings: string }>`select id, partner_settings from sites where partner_access_token is not null`.execute(db);
  for (const row of rows.rows) {
    const settings = parseSettings(row.partner_settings);
    const origins = JSON.stringify({ base_url: originOf(settings.base_url), mcp_url: originOf(settings.mcp_url) });
    await sql`update sites set partner_token_origins = ${origins} where id = ${row.id}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sites').dropColumn('partner_token_origins').execute();
}

// The rules as they were when this migration was written; later changes to the service's own
// helpers must not change what this migration did.
function parseSettings(text: string): { base_url: unknown; mcp_url: unknown } {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) {
      const record = parsed as Record<string, unknown>;
      return { base_url: record.base_url, mcp_url: record.mcp_url };
    }
  } catch {
    // An unreadable row binds to no origin: its token is then sent nowhere until saved again.
  }
  return { base_url: '', mcp_url: '' };
}

function originOf(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : '';
  } catch {
    return '';
  }
}
