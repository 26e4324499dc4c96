import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError, validationError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { UserRow } from '../users/queries.js';
import { checkName } from '../users/service.js';
import { updateUserName } from './queries.js';
import { USER_ERRORS } from '../users/errors.js';

/** The account's own description of itself: today its display name. */
export class ProfileService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Sets the display name, trimmed, under the sign-up rule; the updated user. */
  async rename(userId: string, nameInput: string): Promise<UserRow> {
    const name = nameInput.trim();
    const invalid = checkName(name);
    if (invalid.length > 0) throw validationError(invalid);
    const user = await updateUserName(this.db, userId, name, this.clock.now().toISOString());
    if (user === undefined) throw new AppError(404, USER_ERRORS.USER_NOT_FOUND, 'This account no longer exists.');
    return user;
  }
}
