import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Guard } from '../auth/guard.js';
import { AppError } from '../errors.js';
import { ProblemSchema } from '../http/schema.js';
import type { App } from '../http/types.js';
import { SETTINGS_SCHEMA_ERRORS } from './settings-schema-errors.js';
import { SETTINGS_SCHEMAS, type SettingsSchemaGroup } from './settings-schemas.js';

const security: Array<Record<string, string[]>> = [{ BearerAuth: [] }, { AccessToken: [] }];
const tags = ['sites'];
const errors = { 401: ProblemSchema, 403: ProblemSchema };
const GROUPS = Object.keys(SETTINGS_SCHEMAS) as SettingsSchemaGroup[];

/** A JSON Schema document: described, not restated, so the OpenAPI document shows each one whole below. */
const AnySchemaDocument = Type.Object({}, { additionalProperties: true, description: 'A JSON Schema 2020-12 document' });

/** Sends a document encoded beforehand; the type provider only knows the schema's objects, hence the wider reply type. */
function sendEncoded(reply: FastifyReply, contentType: string, body: string): FastifyReply {
  return reply.type(contentType).send(body);
}

// The documents never change while the process runs: encode them once.
const allSchemasBody = JSON.stringify({ schemas: SETTINGS_SCHEMAS });
const schemaBodies = new Map<string, string>(GROUPS.map((group) => [group, JSON.stringify(SETTINGS_SCHEMAS[group])]));

/**
 * The shapes of the settings groups (settings-schemas.ts, docs/settings.md). Any caller that may
 * read sites may read them: they hold no data, but they are part of the sites API, not a public page.
 */
export function registerSettingsSchemaRoutes(app: App, deps: { guard: Guard }): void {
  const read = deps.guard.require('sites:read');

  app.get(
    '/api/v1/settings-schemas',
    {
      onRequest: read,
      schema: {
        summary: 'The JSON Schema (2020-12) of every settings group, keyed by the site field it describes',
        description: 'The API stores each settings group as a string and accepts any string; these shapes are what the dashboard writes and checks.',
        tags,
        security,
        response: {
          200: Type.Object(
            { schemas: Type.Object(Object.fromEntries(GROUPS.map((group) => [group, AnySchemaDocument]))) },
            { examples: [{ schemas: SETTINGS_SCHEMAS }] },
          ),
          ...errors,
        },
      },
    },
    async (_request, reply) => sendEncoded(reply, 'application/json; charset=utf-8', allSchemasBody),
  );

  app.get(
    '/api/v1/settings-schemas/:group',
    {
      onRequest: read,
      schema: {
        summary: 'The JSON Schema (2020-12) of one settings group',
        tags,
        security,
        params: Type.Object({ group: Type.String({ maxLength: 100, description: `One of: ${GROUPS.join(', ')}` }) }),
        response: { 200: AnySchemaDocument, ...errors, 404: ProblemSchema },
      },
    },
    async (request, reply) => {
      const body = schemaBodies.get(request.params.group);
      if (body === undefined) {
        throw new AppError(404, SETTINGS_SCHEMA_ERRORS.SETTINGS_GROUP_NOT_FOUND, `There is no settings group of that name; the groups are ${GROUPS.join(', ')}.`);
      }
      return sendEncoded(reply, 'application/schema+json; charset=utf-8', body);
    },
  );
}
