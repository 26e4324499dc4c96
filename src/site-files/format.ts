import { Ajv } from 'ajv';
import { Type, type Static } from 'typebox';
import { SiteUpdateBody } from '../sites/schema.js';

/**
 * The file `export` writes and `import` reads: a workspace's live sites, each as the API shows it
 * (never the partner access token, which stays in the database it was stored in) with the version
 * it was at, so an import can tell whether the site changed since.
 */
export const SITE_FILE_FORMAT = 'siteward-sites';
export const SITE_FILE_FORMAT_VERSION = 1;

export const SiteFileEntry = Type.Object(
  {
    ...SiteUpdateBody.properties,
    version: Type.Optional(Type.Integer({ minimum: 1, description: 'The version exported; left out for a site to create' })),
  },
  { additionalProperties: false },
);
export type SiteFileEntryJson = Static<typeof SiteFileEntry>;

export const SiteFile = Type.Object(
  {
    format: Type.Literal(SITE_FILE_FORMAT),
    format_version: Type.Literal(SITE_FILE_FORMAT_VERSION),
    workspace_id: Type.String(),
    exported_at: Type.String(),
    sites: Type.Array(SiteFileEntry, { maxItems: 10_000 }),
  },
  { additionalProperties: false },
);
export type SiteFileJson = Static<typeof SiteFile>;

/** A file that cannot be imported, with where: a line and column, or a field's JSON Pointer. */
export class SiteFileError extends Error {}

const ajv = new Ajv({ allErrors: false, strict: false });
const validateFile = ajv.compile<SiteFileJson>(SiteFile);

/** Line and column (from 1) of a character offset in the text. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

/** Parses and checks the file's text; every failure says where, never with a stack trace. */
export function parseSiteFile(text: string, name: string): SiteFileJson {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message);
    const where = position?.[1] === undefined ? '' : ` at ${lineAndColumn(text, Number(position[1]))}`;
    throw new SiteFileError(`${name} is not JSON${where}: ${message.replace(/ in JSON at position \d+.*$/, '')}`);
  }
  if (!validateFile(data)) {
    const first = validateFile.errors?.[0];
    const field = first === undefined ? '' : first.keyword === 'additionalProperties' ? `${first.instancePath}/${String((first.params as { additionalProperty?: string }).additionalProperty)}` : first.instancePath;
    const message = first?.keyword === 'additionalProperties' ? 'is not a field of this file' : (first?.message ?? 'is not valid');
    throw new SiteFileError(`${name}: ${field === '' ? '(the file)' : field} ${message}`);
  }
  return data;
}
