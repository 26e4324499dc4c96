import { COLOR_PATTERN as COLOR_PATTERN_SOURCE } from '@server/sites/contract';

/** A site colour as the API accepts it (`#rgb` or `#rrggbb`). Its own module: the sites list needs it without the editor. */
export const COLOR_PATTERN = new RegExp(COLOR_PATTERN_SOURCE);
