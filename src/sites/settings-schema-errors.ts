/** Error codes of the settings schemas. Values are the wire's `code`. No imports: the dashboard imports this list too. */
export const SETTINGS_SCHEMA_ERRORS = {
  SETTINGS_GROUP_NOT_FOUND: 'settings_group_not_found',
} as const;

// Registers the list with the codes a problem may carry (src/problem.ts), which names no feature.
declare module '../problem.js' {
  interface ErrorCodeLists {
    settingsSchemas: typeof SETTINGS_SCHEMA_ERRORS;
  }
}
