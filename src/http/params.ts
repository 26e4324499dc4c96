import { Type } from 'typebox';
import { ID_PATTERN } from '../lib/id-shape.js';

/**
 * The shapes of ids, numbers and cursors in paths and query strings, shared by every route. Each is
 * checked by schema before any query, so that input neither database can compare (a NUL, which
 * PostgreSQL refuses in text; a number past its 32-bit integer) is a 400 on both, never a 500.
 * NUL is refused in every parameter by the validator itself (src/http/validation.ts).
 */

/** PostgreSQL's `integer`, the type of every counted column a parameter is compared with (versions). */
export const INT32_MAX = 2_147_483_647;

/**
 * A regular expression for the decimal numbers 1..max without leading zeros: a cursor that is a
 * number travels as text, and JSON Schema bounds only numbers, so its range is bounded by pattern.
 */
export function positiveDecimalPattern(max: number): string {
  const digits = String(max);
  // Fewer digits than max: any such number is smaller.
  const alternatives = digits.length > 1 ? [`[1-9][0-9]{0,${digits.length - 2}}`] : [];
  // As many digits: equal to max up to some digit, then a smaller one there, anything after.
  for (let index = 0; index < digits.length; index++) {
    const digit = Number(digits[index]);
    const lowest = index === 0 ? 1 : 0;
    const rest = digits.length - index - 1;
    if (digit > lowest) alternatives.push(`${digits.slice(0, index)}[${lowest}-${digit - 1}]${rest > 0 ? `[0-9]{${rest}}` : ''}`);
  }
  alternatives.push(digits);
  return `^(?:${alternatives.join('|')})$`;
}

/** Every id Siteward makes is a UUID (src/lib/ids.ts): anything else names nothing. */
export const Id = Type.String({ pattern: ID_PATTERN, description: 'An id, as the API answered it (a UUID)' });

/** An id parameter with a description of its own (which workspace, whose cursor). */
export function describedId(description: string) {
  return Type.String({ pattern: ID_PATTERN, description });
}

/** A site's version number: 1 up to the integer column it is stored in. */
export const VersionNumber = Type.Integer({ minimum: 1, maximum: INT32_MAX });

/** next_cursor of a list paged by a version number: the number as text, in the same range. */
export const VersionCursor = Type.String({ pattern: positiveDecimalPattern(INT32_MAX), description: 'next_cursor of the page before' });

/**
 * Marks a parameter whose route judges any text itself before it reaches a query (a public key's
 * shape, a token only ever hashed), so that malformed input gets the route's own answer rather
 * than the validator's refusal of NUL.
 */
export const CHECKED_BY_ROUTE = 'x-checked-by-route';

/** A message a person can act on for the patterns above, in place of the regular expression. */
export const PATTERN_MESSAGES: ReadonlyMap<string, string> = new Map([
  [ID_PATTERN, 'must be an id (a UUID, as the API answered it)'],
  [positiveDecimalPattern(INT32_MAX), `must be a whole number from 1 to ${INT32_MAX}`],
]);
