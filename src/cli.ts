import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PasswordHasher } from './passwords/passwords.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { AppError } from './errors.js';
import { systemClock } from './lib/clock.js';
import { Cache } from './cache/cache.js';
import { NO_CHANGE_FEED } from './cache/change-feed.js';
import { userToJson } from './users/presenter.js';
import { UserService } from './users/service.js';
import { isWorkspaceRole, WORKSPACE_ROLES } from './memberships/permissions.js';
import { listAllWorkspaces } from './memberships/queries.js';
import { WorkspaceService } from './workspaces/service.js';
import { AdminService } from './admin/service.js';
import { SecretBox } from './lib/crypto.js';
import { parseSiteFile, SiteFileError } from './site-files/format.js';
import { type SiteImportStep, SiteFiles } from './site-files/service.js';
import { SiteService } from './sites/service.js';
import { BackupError, backupSqlite, restoreSqlite } from './backup/sqlite-backup.js';
import { OWNER_ONLY } from './db/owner-only-files.js';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  users:create --email E --password P [--name N] [--json]   create a user (works when SIGNUP=closed)
  users:list [--json]                                       list users
  users:promote --email E [--json]                          make the user an instance administrator (the Admin area)
  users:demote --email E [--json]                           take it back; the last enabled administrator stays
  workspaces:list [--json]                                  list workspaces, whose personal one, how many members
  workspaces:add-member --workspace ID --email E --role R   add a user to a workspace (R: ${WORKSPACE_ROLES.join(', ')})
  backup --to FILE [--json]                                 copy the SQLite database while servers run (PostgreSQL: pg_dump)
  restore --from FILE [--json]                              restore a backup into DATA_DIR; every server must be stopped
  export --workspace ID [--to FILE]                         the workspace's sites as JSON (never a partner token)
  import --workspace ID FILE [--dry-run] [--force] [--bypass-review] [--json]
                                                            show, then apply, the file's differences in one transaction, each as a version
`;

const COMMANDS = ['users:create', 'users:list', 'users:promote', 'users:demote', 'workspaces:list', 'workspaces:add-member', 'backup', 'restore', 'export', 'import'];

/**
 * Administrative commands against the configured database. Exit codes: 0 done and its output
 * written in full, 1 failed (standard output closed early included), 2 usage.
 */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      workspace: { type: 'string' },
      role: { type: 'string' },
      to: { type: 'string' },
      from: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      'bypass-review': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });

  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === undefined || !COMMANDS.includes(command)) {
    process.stderr.write(command === undefined ? USAGE : `Unknown command "${command}".\n\n${USAGE}`);
    return 2;
  }
  if (command === 'users:create' && (values.email === undefined || values.password === undefined)) {
    process.stderr.write(`users:create needs --email and --password.\n\n${USAGE}`);
    return 2;
  }
  if ((command === 'users:promote' || command === 'users:demote') && values.email === undefined) {
    process.stderr.write(`${command} needs --email.\n\n${USAGE}`);
    return 2;
  }
  if (command === 'workspaces:add-member' && (values.workspace === undefined || values.email === undefined || values.role === undefined || !isWorkspaceRole(values.role))) {
    process.stderr.write(`workspaces:add-member needs --workspace, --email and --role (${WORKSPACE_ROLES.join(', ')}).\n\n${USAGE}`);
    return 2;
  }

  if ((command === 'export' || command === 'import') && values.workspace === undefined) {
    process.stderr.write(`${command} needs --workspace ID.\n\n${USAGE}`);
    return 2;
  }
  if (command === 'import' && positionals.length !== 1) {
    process.stderr.write(`import needs the file to import, once.\n\n${USAGE}`);
    return 2;
  }
  if (command !== 'import' && positionals.length > 0) {
    process.stderr.write(`Unexpected argument "${positionals[0] ?? ''}".\n\n${USAGE}`);
    return 2;
  }
  if ((command === 'backup' && values.to === undefined) || (command === 'restore' && values.from === undefined)) {
    process.stderr.write(`${command} needs ${command === 'backup' ? '--to FILE' : '--from FILE'}.\n\n${USAGE}`);
    return 2;
  }

  const config = loadConfig(process.env);
  if (command === 'backup' || command === 'restore') {
    // Before the database is opened: a restore must not find (or make) a connection of its own there.
    if (config.database.kind !== 'sqlite') throw new BackupError(`DATABASE_URL names PostgreSQL: use pg_dump and pg_restore (docs/deployment.md, Backups)`);
    const summary =
      command === 'backup'
        ? { ...(await backupSqlite(config.database.file, values.to ?? '')), previous: null }
        : await restoreSqlite(config.database.file, values.from ?? '', systemClock.now());
    if (values.json) await print(`${JSON.stringify(summary)}\n`);
    else if (command === 'backup') await print(`Backed up ${summary.pages} pages (${summary.bytes} bytes) to ${summary.file}\n`);
    else await print(`Restored ${summary.file} (${summary.bytes} bytes)${summary.previous === null ? '' : `; the database it replaced is kept as ${summary.previous}`}\n`);
    return 0;
  }
  const database = openDatabase(config.database);
  try {
    await migrate(database);
    const users = new UserService(database.db, new PasswordHasher(), systemClock);
    if (command === 'users:create') {
      const user = userToJson(await users.createUser({ email: values.email ?? '', password: values.password ?? '', name: values.name }, { emailVerified: true }));
      await print(values.json ? `${JSON.stringify({ user })}\n` : `Created user ${user.email} (${user.id})\n`);
    } else if (command === 'export' || command === 'import') {
      const sites = new SiteService({ db: database.db, dialect: database.dialect, clock: systemClock, secrets: new SecretBox(config.encryptionKey), cache: new Cache({ feed: NO_CHANGE_FEED, maxBytes: 0 })});
      const files = new SiteFiles({ db: database.db, sites, clock: systemClock });
      const workspaceId = values.workspace ?? '';
      if (command === 'export') {
        const text = `${JSON.stringify(await files.export(workspaceId), null, 2)}\n`;
        if (values.to === undefined) await print(text);
        else writeFileSync(values.to, text, { flag: 'wx', mode: OWNER_ONLY });
        return 0;
      }
      const name = positionals[0] ?? '';
      let text: string;
      try {
        text = readFileSync(name, 'utf8');
      } catch (error) {
        throw new SiteFileError(`cannot read ${name}: ${error instanceof Error && 'code' in error ? String(error.code) : String(error)}`);
      }
      const steps = await files.plan(workspaceId, parseSiteFile(text, name), values.force);
      const conflicts = steps.filter((step) => step.kind === 'conflict').length;
      const apply = !values['dry-run'] && conflicts === 0;
      const created = apply ? await files.apply(workspaceId, steps, { bypassReview: values['bypass-review'] }) : [];
      if (values.json) await print(`${JSON.stringify({ steps: steps.map(({ kind, index, name: siteName, ...rest }) => ({ kind, index, name: siteName, ...('id' in rest ? { id: rest.id } : {}), ...('fields' in rest ? { fields: rest.fields } : {}) })), applied: apply, created })}\n`);
      else {
        // One write for the whole plan: ten thousand lines are one pipe hand-over, not ten thousand.
        await print(steps.map((step) => `${describeStep(step)}\n`).join(''));
        await print(apply ? `Applied: ${steps.filter((step) => step.kind === 'create').length} created, ${steps.filter((step) => step.kind === 'update').length} updated.\n` : values['dry-run'] ? 'Dry run: nothing was changed.\n' : '');
      }
      if (conflicts > 0) throw new SiteFileError(`${conflicts} site(s) changed since the export; nothing was changed. Export again and merge, or import with --force to overwrite them`);
    } else if (command === 'users:promote' || command === 'users:demote') {
      // The servers learn of the change from the database (change-feed.ts); this process keeps nothing.
      const admin = new AdminService({ db: database.db, dialect: database.dialect, clock: systemClock, cache: new Cache({ feed: NO_CHANGE_FEED, maxBytes: 0 }) });
      const promote = command === 'users:promote';
      const email = values.email ?? '';
      const { userId, changed } = promote ? await admin.promote(email) : await admin.demote(email);
      const result = { user_id: userId, instance_admin: promote, changed };
      if (values.json) await print(`${JSON.stringify(result)}\n`);
      else if (!changed) await print(`${email} ${promote ? 'is already' : 'was not'} an instance administrator\n`);
      else await print(`${email} ${promote ? 'is now' : 'is no longer'} an instance administrator\n`);
    } else if (command === 'workspaces:list') {
      const list = (await listAllWorkspaces(database.db)).map((row) => ({
        id: row.id,
        name: row.name,
        personal_of: row.personal_email,
        members: row.member_count,
        created_at: row.created_at,
      }));
      if (values.json) await print(`${JSON.stringify({ workspaces: list })}\n`);
      else if (list.length === 0) await print('No workspaces yet.\n');
      else for (const row of list) await print(`${row.id}  ${row.name}  ${row.personal_of === null ? 'team' : `personal: ${row.personal_of}`}  ${row.members} member(s)\n`);
    } else if (command === 'workspaces:add-member') {
      const user = await users.findByEmail(values.email ?? '');
      if (user === undefined) throw new Error(`no user with the e-mail address ${values.email ?? ''}`);
      const role = values.role ?? '';
      if (!isWorkspaceRole(role)) return 2;
      // The servers learn of the change from the database (change-feed.ts); this process keeps nothing.
      const workspaces = new WorkspaceService({ db: database.db, dialect: database.dialect, clock: systemClock, cache: new Cache({ feed: NO_CHANGE_FEED, maxBytes: 0 }) });
      const added = await workspaces.addMember(values.workspace ?? '', user.id, role);
      const result = { workspace_id: values.workspace, user_id: user.id, role, added };
      if (values.json) await print(`${JSON.stringify(result)}\n`);
      else await print(added ? `Added ${user.email} to ${values.workspace ?? ''} as ${role}\n` : `${user.email} is already a member of ${values.workspace ?? ''}; role unchanged\n`);
    } else {
      const list = (await users.list()).map(userToJson);
      if (values.json) await print(`${JSON.stringify({ users: list })}\n`);
      else if (list.length === 0) await print('No users yet.\n');
      else for (const user of list) await print(`${user.id}  ${user.email}  ${user.name}  ${user.created_at}\n`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

function describeStep(step: SiteImportStep): string {
  const name = JSON.stringify(step.name);
  if (step.kind === 'create') return `create    ${name} (a new site)`;
  if (step.kind === 'update') return `update    ${step.id} ${name}: ${step.fields.join(', ')}`;
  if (step.kind === 'unchanged') return `unchanged ${step.id} ${name}`;
  return `conflict  ${step.id} ${name}: the site is at version ${step.currentVersion}, the file has ${step.fileVersion ?? 'none'}`;
}

/**
 * Standard output was closed before everything was written to it (a reader that stopped early, as
 * `| head -1` does): the output is incomplete, so the command failed whatever it did before.
 */
class OutputClosedError extends Error {}

// Write errors (EPIPE) reach the callbacks of print(); unlistened, the stream's error event would
// end the process with a stack trace instead.
process.stdout.on('error', () => undefined);

/**
 * Writes to standard output and resolves once the operating system has taken all of it. A pipe
 * takes 64 KiB at a time and Node queues the rest in the process: exiting before the queue drains
 * would cut the output short and still report success, so every command waits for its writes.
 */
function print(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (error) => {
      if (error === null || error === undefined) resolve();
      else reject(new OutputClosedError(`standard output closed before the output was written in full (${'code' in error ? String(error.code) : error.message})`));
    });
  });
}

/** Ends the process once what was written to standard error has been taken too. */
function exit(code: number): void {
  process.exitCode = code;
  process.stderr.write('', () => process.exit(code));
}

main(process.argv.slice(2)).then(exit, (error: unknown) => {
  if (error instanceof AppError || error instanceof ConfigError || error instanceof BackupError || error instanceof SiteFileError || error instanceof OutputClosedError) {
    process.stderr.write(`error: ${error instanceof AppError ? error.detail : error.message}\n`);
  } else if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`${error.message}\n\n${USAGE}`);
    exit(2);
    return;
  } else {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  exit(1);
});
