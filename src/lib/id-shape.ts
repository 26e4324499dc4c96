/**
 * The shape of every id Siteward makes (newId in ids.ts): a UUID in lower-case hex. Kept free of
 * imports, so that schemas the dashboard compiles can check it too.
 */
export const ID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
