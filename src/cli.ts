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

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  users:create --email E --password P [--name N] [--json]   create a user (works when SIGNUP=closed)
  users:list [--json]                                       list users
  workspaces:list [--json]                                  list workspaces, whose personal one, how many members
  workspaces:add-member --workspace ID --email E --role R   add a user to a workspace (R: ${WORKSPACE_ROLES.join(', ')})
`;

const COMMANDS = ['users:create', 'users:list', 'workspaces:list', 'workspaces:add-member'];

/** Administrative commands against the configured database. Exit codes: 0 done, 1 failed, 2 usage. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      workspace: { type: 'string' },
      role: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });

  if (command === undefined || !COMMANDS.includes(command)) {
    process.stderr.write(command === undefined ? USAGE : `Unknown command "${command}".\n\n${USAGE}`);
    return 2;
  }
  if (command === 'users:create' && (values.email === undefined || values.password === undefined)) {
    process.stderr.write(`users:create needs --email and --password.\n\n${USAGE}`);
    return 2;
  }
  if (command === 'workspaces:add-member' && (values.workspace === undefined || values.email === undefined || values.role === undefined || !isWorkspaceRole(values.role))) {
    process.stderr.write(`workspaces:add-member needs --workspace, --email and --role (${WORKSPACE_ROLES.join(', ')}).\n\n${USAGE}`);
    return 2;
  }

  const config = loadConfig(process.env);
  const database = openDatabase(config.database);
  try {
    await migrate(database);
    const users = new UserService(database.db, new PasswordHasher(), systemClock);
    if (command === 'users:create') {
      const user = userToJson(await users.createUser({ email: values.email ?? '', password: values.password ?? '', name: values.name }, { emailVerified: true }));
      process.stdout.write(values.json ? `${JSON.stringify({ user })}\n` : `Created user ${user.email} (${user.id})\n`);
    } else if (command === 'workspaces:list') {
      const list = (await listAllWorkspaces(database.db)).map((row) => ({
        id: row.id,
        name: row.name,
        personal_of: row.personal_email,
        members: row.member_count,
        created_at: row.created_at,
      }));
      if (values.json) process.stdout.write(`${JSON.stringify({ workspaces: list })}\n`);
      else if (list.length === 0) process.stdout.write('No workspaces yet.\n');
      else for (const row of list) process.stdout.write(`${row.id}  ${row.name}  ${row.personal_of === null ? 'team' : `personal: ${row.personal_of}`}  ${row.members} member(s)\n`);
    } else if (command === 'workspaces:add-member') {
      const user = await users.findByEmail(values.email ?? '');
      if (user === undefined) throw new Error(`no user with the e-mail address ${values.email ?? ''}`);
      const role = values.role ?? '';
      if (!isWorkspaceRole(role)) return 2;
      // The servers learn of the change from the database (change-feed.ts); this process keeps nothing.
      const workspaces = new WorkspaceService({ db: database.db, dialect: database.dialect, clock: systemClock, cache: new Cache({ feed: NO_CHANGE_FEED, maxBytes: 0 }) });
      const added = await workspaces.addMember(values.workspace ?? '', user.id, role);
      const result = { workspace_id: values.workspace, user_id: user.id, role, added };
      if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
      else process.stdout.write(added ? `Added ${user.email} to ${values.workspace ?? ''} as ${role}\n` : `${user.email} is already a member of ${values.workspace ?? ''}; role unchanged\n`);
    } else {
      const list = (await users.list()).map(userToJson);
      if (values.json) process.stdout.write(`${JSON.stringify({ users: list })}\n`);
      else if (list.length === 0) process.stdout.write('No users yet.\n');
      else for (const user of list) process.stdout.write(`${user.id}  ${user.email}  ${user.name}  ${user.created_at}\n`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof AppError || error instanceof ConfigError) {
      process.stderr.write(`error: ${error instanceof AppError ? error.detail : error.message}\n`);
    } else if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${error.message}\n\n${USAGE}`);
      process.exit(2);
    } else {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    process.exit(1);
  },
);
