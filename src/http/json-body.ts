import { validationError } from '../errors.js';
import type { App } from './types.js';

/**
 * How deeply arrays and objects may nest in a request body, the body itself being the first level.
 * No body of ours needs more than a handful; the limit is there because code that walks a parsed
 * value recursively (validation, the storable-text check, serialisation) runs out of stack on a
 * body of a few thousand levels, which fits in a few kilobytes.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, found by one pass over the text
 * before anything parses or walks it. Brackets inside strings are skipped. Malformed text is
 * answered somehow and then refused by JSON.parse.
 */
export function nestedDeeperThan(text: string, limit: number): boolean {
  // Each level needs at least one character.
  if (text.length <= limit) return false;
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === QUOTE) {
      index = closingQuote(text, index);
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/** The index of the quote that ends the string opened at `open`, or the text's length. */
function closingQuote(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    // An even run of backslashes escapes itself, not the quote.
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

export function tooDeeplyNested(): Error {
  return validationError([{ path: '', message: `must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep` }]);
}

/**
 * JSON bodies as Fastify parses them (prototype-poisoning keys refused), after the depth check.
 * Form bodies (@fastify/formbody) are flat name=value pairs and cannot nest.
 */
export function registerJsonParser(app: App, bodyLimit: number): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
      done(tooDeeplyNested(), undefined);
      return;
    }
    parse(request, text, done);
  });
}
