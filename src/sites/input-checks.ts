import { AppError, type FieldError, validationError } from '../errors.js';
import { SITE_ERRORS } from './errors.js';
import { SETTINGS_FIELDS, SETTINGS_MAX_BYTES, type SiteUpdate } from './schema.js';

function isHttpUrl(value: string): boolean {
  if (value !== value.trim()) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Rules the JSON schema cannot say. Size problems are 413 (the content is too large), the rest
 * 400; both name every offending field. Nothing is written when either is raised.
 */
export function checkSiteInput(input: SiteUpdate): void {
  const invalid: FieldError[] = [];
  const tooLarge: FieldError[] = [];
  if (input.name !== undefined && input.name.trim() === '') invalid.push({ path: '/name', message: 'must not be blank' });
  for (const field of SETTINGS_FIELDS) {
    const value = input[field];
    if (value !== undefined && Buffer.byteLength(value, 'utf8') > SETTINGS_MAX_BYTES) {
      tooLarge.push({ path: `/${field}`, message: `must be at most ${SETTINGS_MAX_BYTES} bytes` });
    }
  }
  const partner = input.partner_settings;
  for (const field of ['base_url', 'mcp_url'] as const) {
    const value = partner?.[field];
    if (value !== undefined && value !== '' && !isHttpUrl(value)) {
      invalid.push({ path: `/partner_settings/${field}`, message: 'must be empty or an absolute http(s) URL' });
    }
  }
  if (tooLarge.length > 0) {
    throw new AppError(413, SITE_ERRORS.FIELD_TOO_LARGE, tooLarge.map((error) => `${error.path}: ${error.message}`).join('; '), { errors: tooLarge });
  }
  if (invalid.length > 0) throw validationError(invalid);
}
