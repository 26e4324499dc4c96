import type { Insertable, Kysely } from 'kysely';
import type { AccessTokenRow } from '../src/access-tokens/queries.js';
import { DEFAULT_PASSWORD_HASHING, PasswordHasher } from '../src/passwords/passwords.js';
import { generateAccessToken, hashAccessToken } from '../src/auth/tokens.js';
import type { Database, UsersTable, WorkspaceMembersTable, WorkspacesTable } from '../src/db/schema.js';
import { generatePublicKey } from '../src/lib/public-keys.js';
import { newId } from '../src/lib/ids.js';
import type { SiteRow } from '../src/sites/queries.js';
import { DEFAULT_PARTNER_SETTINGS } from '../src/sites/partner-settings.js';
import type { UserRow } from '../src/users/queries.js';

export interface SeedSize {
  users: number;
  sitesPerUser: number;
  tokens: number;
}

export interface SeededUser {
  id: string;
  email: string;
  /** In id order, which is the order GET /api/v1/sites lists them. */
  siteIds: string[];
  /** Each site's public key, in the order of siteIds. */
  publicKeys: string[];
  /** The user's first personal access token in clear, or null when the user has none. */
  accessToken: string | null;
}

export interface SeedData {
  password: string;
  users: SeededUser[];
  sites: number;
  tokens: number;
}

/** Every seeded user signs in with this; it is hashed once and the hash shared by all rows. */
export const SEED_PASSWORD = 'bench-violet-harbour-cinnamon-42';

// Multi-row inserts stay under SQLite's 32,766 bound parameters (19 columns × 500 rows).
const BATCH_ROWS = 500;

/** Settings as a real help-centre site carries them: small JSON documents, about 1 KB in all. */
function siteRow(userId: string, workspaceId: string, index: number, createdAt: Date): SiteRow {
  const at = createdAt.toISOString();
  // Fixed-width numbers: every user's page of sites is the same size, the size the baseline sends.
  const number = String(index).padStart(7, '0');
  return {
    id: newId(createdAt),
    workspace_id: workspaceId,
    user_id: userId,
    name: `Help centre ${number}`,
    color: '#4f46e5',
    ai_settings: JSON.stringify({
      model: 'gpt-4o-mini',
      temperature: 0.2,
      max_tokens: 800,
      system_prompt: 'Answer questions about the product from the knowledge sources only. Be brief, and link the article you used.',
    }),
    email_settings: JSON.stringify({ from_name: 'Support', reply_to: 'support@example.com', signature: 'The support team' }),
    widget: JSON.stringify({ position: 'bottom-right', greeting: 'Hi! How can we help?', launcher_color: '#4f46e5' }),
    portal: JSON.stringify({ title: 'Help centre', subdomain: `help-${number}`, show_search: true }),
    branding: JSON.stringify({ logo_url: 'https://cdn.example.com/logo.png', font: 'Inter' }),
    public_theme: 'light',
    knowledge_sources: JSON.stringify([{ type: 'sitemap', url: 'https://www.example.com/sitemap.xml' }]),
    partner_settings: JSON.stringify(DEFAULT_PARTNER_SETTINGS),
    partner_access_token: null,
    partner_token_origins: null,
    version: 1,
    created_at: at,
    updated_at: at,
    deleted_at: null,
    deleted_by: null,
    public_key: generatePublicKey(),
    previous_public_key: null,
    previous_public_key_expires_at: null,
  };
}

/**
 * The user columns the benchmark sets. The revocation column ("sign out everywhere") is left to its
 * database default, so the seed does not depend on how that mechanism is named or counted.
 */
type SeedUserRow = Pick<UserRow, 'id' | 'email' | 'name' | 'password_hash' | 'created_at' | 'updated_at'>;

async function insertInBatches<T>(rows: T[], insert: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < rows.length; start += BATCH_ROWS) await insert(rows.slice(start, start + BATCH_ROWS));
}

/**
 * Fills a freshly migrated database straight through Kysely, in one transaction. Argon2id runs
 * once (with the production parameters, so the login scenario pays the real cost) and the hash is
 * shared; access tokens are stored as the service stores them, by SHA-256.
 */
export async function seedDatabase(db: Kysely<Database>, size: SeedSize): Promise<SeedData> {
  const passwordHash = await new PasswordHasher(DEFAULT_PASSWORD_HASHING).hash(SEED_PASSWORD);
  // Rows are dated in the recent past, one millisecond apart, so ids (UUIDv7) keep creation order.
  const start = Date.now() - (size.users * (size.sitesPerUser + 2) + 1000);
  let tick = 0;
  const nextDate = () => new Date(start + tick++);

  const users: SeedUserRow[] = [];
  // Each user's personal workspace, as sign-up makes it, holding their sites.
  const workspaces: WorkspacesTable[] = [];
  const members: WorkspaceMembersTable[] = [];
  const sites: SiteRow[] = [];
  const tokens: AccessTokenRow[] = [];
  const seeded: SeededUser[] = [];
  for (let i = 0; i < size.users; i++) {
    const createdAt = nextDate();
    const user: SeedUserRow = {
      id: newId(createdAt),
      email: `bench-user-${i}@example.com`,
      name: `Bench User ${i}`,
      password_hash: passwordHash,
      created_at: createdAt.toISOString(),
      updated_at: createdAt.toISOString(),
    };
    users.push(user);
    const workspaceId = newId(createdAt);
    workspaces.push({ id: workspaceId, name: 'Personal', personal_user_id: user.id, require_two_factor: 0, review_required: 0, review_approvals: 1, created_at: user.created_at, updated_at: user.created_at });
    members.push({ workspace_id: workspaceId, user_id: user.id, role: 'owner', joined_at: user.created_at });
    const siteIds: string[] = [];
    const publicKeys: string[] = [];
    for (let j = 0; j < size.sitesPerUser; j++) {
      const site = siteRow(user.id, workspaceId, i * size.sitesPerUser + j, nextDate());
      sites.push(site);
      siteIds.push(site.id);
      publicKeys.push(site.public_key);
    }
    seeded.push({ id: user.id, email: user.email, siteIds, publicKeys, accessToken: null });
  }
  for (let k = 0; k < size.tokens; k++) {
    const owner = seeded[k % seeded.length];
    if (owner === undefined) break;
    const token = generateAccessToken();
    const createdAt = nextDate();
    tokens.push({
      id: newId(createdAt),
      user_id: owner.id,
      name: `bench token ${k}`,
      token_hash: hashAccessToken(token),
      last_four: token.slice(-4),
      scopes: 'sites:read sites:write',
      workspace_id: null,
      created_at: createdAt.toISOString(),
      last_used_at: null,
    });
    owner.accessToken ??= token;
  }

  await db.transaction().execute(async (trx) => {
    // The sign-out-everywhere column keeps its database default (0), which every minted JWT satisfies.
    await insertInBatches(users, (batch) => trx.insertInto('users').values(batch as Array<Insertable<UsersTable>>).execute());
    await insertInBatches(workspaces, (batch) => trx.insertInto('workspaces').values(batch).execute());
    await insertInBatches(members, (batch) => trx.insertInto('workspace_members').values(batch).execute());
    await insertInBatches(sites, (batch) => trx.insertInto('sites').values(batch).execute());
    await insertInBatches(tokens, (batch) => trx.insertInto('access_tokens').values(batch).execute());
  });
  return { password: SEED_PASSWORD, users: seeded, sites: sites.length, tokens: tokens.length };
}
