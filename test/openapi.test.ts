import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildTestApp } from './helpers.js';

// Runs once, on SQLite: the OpenAPI document is built from the route schemas alone.

test('GET /api/v1/openapi.json is a valid OpenAPI 3.1 document describing the spec endpoints', async () => {
  const t = await buildTestApp();
  try {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(response.statusCode, 200);
    const document = response.json();
    assert.equal(document.openapi, '3.1.0');
    const result = await new Validator().validate(document);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.ok(document.paths['/auth/login'].post);
    assert.ok(document.paths['/api/v1/sites'].get);
    assert.ok(document.paths['/api/v1/sites/{id}'].put);
    assert.ok(document.paths['/api/v1/access-tokens'].post);
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['AccessToken', 'BearerAuth']);
    const partner = document.paths['/api/v1/sites/{id}'].put.responses['200'].content['application/json'].schema.properties.site.properties.partner_settings;
    assert.equal(partner.properties.access_token, undefined, 'the secret is not part of any response');
  } finally {
    await t.close();
  }
});
