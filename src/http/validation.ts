import { Ajv, type ErrorObject } from 'ajv';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import type { FieldError } from '../errors.js';

/**
 * Bodies are validated strictly: no type coercion ("5" is not a number) and no silent removal of
 * unknown fields (an unknown field is an error naming it). Query strings and path parameters are
 * text by nature, so there numbers are coerced.
 */
const strict = new Ajv({ allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: false, strict: false });
const coercing = new Ajv({ allErrors: true, coerceTypes: true, removeAdditional: false, useDefaults: true, strict: false });

export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strict : coercing).compile(schema as object);

/** Ajv's errors as JSON Pointer paths a client can map to its form fields. */
export function fieldErrors(errors: ReadonlyArray<Partial<ErrorObject>>, context: string | undefined): FieldError[] {
  const prefix = context === 'body' || context === undefined ? '' : `/${context}`;
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const error of errors) {
    const params = (error.params ?? {}) as Record<string, unknown>;
    let path = `${prefix}${error.instancePath ?? ''}`;
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'additionalProperties') {
      path += `/${String(params.additionalProperty)}`;
      message = 'is not a known field';
    } else if (error.keyword === 'required') {
      path += `/${String(params.missingProperty)}`;
      message = 'is required';
    } else if (error.keyword === 'type') {
      message = `must be ${String(params.type).replace(',', ' or ')}`;
    } else if (error.keyword === 'enum') {
      message = `must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    } else if (error.keyword === 'pattern' && path.endsWith('/color')) {
      message = 'must be a colour like #rgb or #rrggbb';
    }
    // A union reports each branch; one line per field and message is enough.
    const key = `${path} ${message}`;
    if (error.keyword === 'anyOf' || seen.has(key)) continue;
    seen.add(key);
    result.push({ path, message });
  }
  return result;
}
