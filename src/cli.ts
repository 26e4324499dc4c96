import { parseArgs } from 'node:util';
import { PasswordHasher } from './passwords/passwords.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { AppError } from './errors.js';
import { systemClock } from './lib/clock.js';
import { userToJson, UserService } from './users/service.js';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  users:create --email E --password P [--name N] [--json]   create a user (works when SIGNUP=closed)
  users:list [--json]                                       list users
`;

/** Administrative commands against the configured database. Exit codes: 0 done, 1 failed, 2 usage. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean', default: false } },
    strict: true,
  });

  if (command !== 'users:create' && command !== 'users:list') {
    process.stderr.write(command === undefined ? USAGE : `Unknown command "${command}".\n\n${USAGE}`);
    return 2;
  }
  if (command === 'users:create' && (values.email === undefined || values.password === undefined)) {
    process.stderr.write(`users:create needs --email and --password.\n\n${USAGE}`);
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
