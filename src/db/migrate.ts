import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import * as initial from './migrations/001-initial.js';
import * as webSignIn from './migrations/002-web-sign-in.js';
import * as twoFactor from './migrations/003-two-factor.js';
import * as passkeys from './migrations/004-passkeys.js';
import * as emailVerification from './migrations/005-email-verification.js';
import * as recentAuthentication from './migrations/006-recent-authentication.js';
import * as partnerTokenOrigins from './migrations/007-partner-token-origins.js';
import * as changeNotifications from './migrations/008-change-notifications.js';
import * as emailChange from './migrations/009-email-change.js';
import * as partnerChecks from './migrations/010-partner-checks.js';
import * as workspaces from './migrations/011-workspaces.js';
import * as invitations from './migrations/012-invitations.js';
import * as siteVersions from './migrations/013-site-versions.js';
import * as auditLog from './migrations/015-audit-log.js';
import * as auditLogByWorkspace from './migrations/016-audit-log-by-workspace.js';
import * as siteTrash from './migrations/017-site-trash.js';
import * as securityEvents from './migrations/018-security-events.js';
import * as webhooks from './migrations/019-webhooks.js';
import * as workspaceTwoFactor from './migrations/020-workspace-two-factor.js';
import * as publicKeys from './migrations/021-public-keys.js';
import * as publicOrigins from './migrations/022-public-origins.js';
import * as singleSignOn from './migrations/023-single-sign-on.js';
import * as changeRequests from './migrations/024-change-requests.js';
import * as instanceAdmins from './migrations/025-instance-admins.js';
import * as usage from './migrations/028-usage.js';
import type { DatabaseHandle } from './connect.js';
import type { Database } from './schema.js';

/** Migrations live in code and are listed here by explicit import, in order. */
const migrations: Record<string, Migration> = {
  '001-initial': initial,
  '002-web-sign-in': webSignIn,
  '003-two-factor': twoFactor,
  '004-passkeys': passkeys,
  '005-email-verification': emailVerification,
  '006-recent-authentication': recentAuthentication,
  '007-partner-token-origins': partnerTokenOrigins,
  '008-change-notifications': changeNotifications,
  '009-email-change': emailChange,
  '010-partner-checks': partnerChecks,
  '011-workspaces': workspaces,
  '012-invitations': invitations,
  '013-site-versions': siteVersions,
  '015-audit-log': auditLog,
  '016-audit-log-by-workspace': auditLogByWorkspace,
  '017-site-trash': siteTrash,
  '018-security-events': securityEvents,
  '019-webhooks': webhooks,
  '020-workspace-two-factor': workspaceTwoFactor,
  '021-public-keys': publicKeys,
  '022-public-origins': publicOrigins,
  '023-single-sign-on': singleSignOn,
  '024-change-requests': changeRequests,
  '025-instance-admins': instanceAdmins,
  '028-usage': usage,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * Brings the schema up to date. Kysely's migrator takes a lock (a row lock on PostgreSQL), so
 * two servers starting together run each migration once.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    const name = failed?.migrationName ?? 'unknown';
    throw new Error(`database migration ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Migrates under the database's migration lock: what every process does at start-up. */
export function migrate(database: DatabaseHandle): Promise<void> {
  return database.withMigrationLock(() => migrateToLatest(database.db));
}

/** Brings the schema up to the named migration and no further: for tests of a migration's data step. */
export async function migrateTo(db: Kysely<Database>, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider }).migrateTo(name);
  if (error !== undefined) throw new Error(`database migration to ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
}
