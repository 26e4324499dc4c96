import type { Kysely } from 'kysely';

/**
 * Single sign-on with OpenID Connect: the identities people sign in with, the authorization
 * requests under way (one per click on a provider's button, bound to the browser that clicked),
 * and the identity waiting for the claim step of an unverified account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_identities')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'text', (column) => column.notNull())
    // The provider's "sub": with the provider's id, who the person is there.
    .addColumn('subject', 'text', (column) => column.notNull())
    // The address the provider last gave; null when it gave none.
    .addColumn('email', 'text')
    .addColumn('linked_at', 'text', (column) => column.notNull())
    .addColumn('last_used_at', 'text')
    // One account per identity, and one identity per provider per account.
    .addUniqueConstraint('user_identities_provider_subject', ['provider', 'subject'])
    .addUniqueConstraint('user_identities_user_provider', ['user_id', 'provider'])
    .execute();

  await db.schema
    .createTable('oidc_authorization_requests')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('provider', 'text', (column) => column.notNull())
    // SHA-256 of the state sent to the provider; the state itself comes back in the callback's URL.
    .addColumn('state_hash', 'text', (column) => column.notNull().unique())
    // SHA-256 of the browser's binding cookie: only the browser that started may finish.
    .addColumn('browser_hash', 'text', (column) => column.notNull())
    // Set when a signed-in person links a provider to their account.
    .addColumn('link_user_id', 'text', (column) => column.references('users.id').onDelete('cascade'))
    // The nonce, PKCE verifier and where to go afterwards, AES-256-GCM encrypted with the row id bound.
    .addColumn('sealed', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('oidc_authorization_requests_expires_at').on('oidc_authorization_requests').column('expires_at').execute();

  await db.schema
    .createTable('oidc_pending_links')
    // The claim-pending session the identity waits with; it goes when the session ends.
    .addColumn('session_id', 'text', (column) => column.primaryKey().references('sessions.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id').onDelete('cascade'))
    // The identity and where to go afterwards, encrypted with the session id bound.
    .addColumn('sealed', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();

  // With SIGNUP=closed, a first sign-in through a provider makes an account only for an invited address.
  await db.schema.createIndex('invitations_email').on('invitations').column('email').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('invitations_email').execute();
  await db.schema.dropTable('oidc_pending_links').execute();
  await db.schema.dropTable('oidc_authorization_requests').execute();
  await db.schema.dropTable('user_identities').execute();
}
