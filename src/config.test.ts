import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-config-'));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

test('defaults: port 3000, loopback, SQLite in DATA_DIR, open sign-up', () => {
  const config = loadConfig({ DATA_DIR: dataDir });
  assert.equal(config.port, 3000);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.publicUrl, 'http://localhost:3000');
  assert.equal(config.publicOrigin, 'http://localhost:3000');
  assert.deepEqual(config.database, { kind: 'sqlite', file: path.join(dataDir, 'siteward.db') });
  assert.equal(config.signup, 'open');
  assert.equal(config.outboundAllowPrivateNetworks, false);
  assert.equal(config.trashRetentionDays, 30);
});

test('generates JWT_SECRET and ENCRYPTION_KEY once, mode 0600, and reuses them', () => {
  const first = loadConfig({ DATA_DIR: dataDir });
  const second = loadConfig({ DATA_DIR: dataDir });
  assert.equal(first.jwtSecret, second.jwtSecret);
  assert.ok(first.encryptionKey.equals(second.encryptionKey));
  assert.ok(first.jwtSecret.length >= 32);
  assert.equal(first.encryptionKey.length, 32);
  for (const file of ['jwt-secret', 'encryption-key']) {
    assert.equal(statSync(path.join(dataDir, file)).mode & 0o777, 0o600, file);
  }
  assert.equal(readFileSync(path.join(dataDir, 'jwt-secret'), 'utf8').trim(), first.jwtSecret);
});

test('explicit secrets win over the generated files', () => {
  const key = Buffer.alloc(32, 7).toString('base64');
  const config = loadConfig({ DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(40), ENCRYPTION_KEY: key });
  assert.equal(config.jwtSecret, 'x'.repeat(40));
  assert.equal(config.encryptionKey.toString('base64'), key);
});

test('each bad value stops start-up with one line naming the variable', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PUBLIC_URL: 'localhost:3000' }, 'PUBLIC_URL'],
    [{ PUBLIC_URL: 'ftp://example.com' }, 'PUBLIC_URL'],
    [{ DATABASE_URL: 'mysql://db/siteward' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://db/siteward', DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    [{ JWT_SECRET: 'too-short' }, 'JWT_SECRET'],
    [{ ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') }, 'ENCRYPTION_KEY'],
    [{ ENCRYPTION_KEY: 'not base64 at all!' }, 'ENCRYPTION_KEY'],
    [{ SIGNUP: 'maybe' }, 'SIGNUP'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ SMTP_URL: 'mail.example.com' }, 'SMTP_URL'],
    [{ PARTNER_ALLOW_PRIVATE_NETWORKS: 'sometimes' }, 'PARTNER_ALLOW_PRIVATE_NETWORKS'],
    [{ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'sometimes' }, 'OUTBOUND_ALLOW_PRIVATE_NETWORKS'],
    [{ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', PARTNER_ALLOW_PRIVATE_NETWORKS: 'false' }, 'OUTBOUND_ALLOW_PRIVATE_NETWORKS'],
    [{ TRASH_RETENTION_DAYS: '0' }, 'TRASH_RETENTION_DAYS'],
    [{ REAUTH_WINDOW_SECONDS: 'ten minutes' }, 'REAUTH_WINDOW_SECONDS'],
    [{ REAUTH_WINDOW_SECONDS: '30' }, 'REAUTH_WINDOW_SECONDS'],
    [{ REAUTH_WINDOW_SECONDS: '86401' }, 'REAUTH_WINDOW_SECONDS'],
    [{ AUDIT_RETENTION_DAYS: '0' }, 'AUDIT_RETENTION_DAYS'],
    [{ AUDIT_RETENTION_DAYS: 'a year' }, 'AUDIT_RETENTION_DAYS'],
    [{ PUBLIC_MAX_AGE_SECONDS: '-1' }, 'PUBLIC_MAX_AGE_SECONDS'],
    [{ PUBLIC_MAX_AGE_SECONDS: '86401' }, 'PUBLIC_MAX_AGE_SECONDS'],
    [{ PUBLIC_STREAMS_MAX: 'many' }, 'PUBLIC_STREAMS_MAX'],
    [{ PUBLIC_STREAMS_PER_ADDRESS: '0' }, 'PUBLIC_STREAMS_PER_ADDRESS'],
  ];
  for (const [env, variable] of cases) {
    assert.throws(
      () => loadConfig({ DATA_DIR: dataDir, ...env }),
      (error: unknown) => error instanceof ConfigError && error.message.startsWith(variable) && !error.message.includes('\n'),
      variable,
    );
  }
});

test('REAUTH_WINDOW_SECONDS: ten minutes by default, from a minute to a day when set', () => {
  assert.equal(loadConfig({ DATA_DIR: dataDir }).reauthWindowSeconds, 600);
  assert.equal(loadConfig({ DATA_DIR: dataDir, REAUTH_WINDOW_SECONDS: '60' }).reauthWindowSeconds, 60);
  assert.equal(loadConfig({ DATA_DIR: dataDir, REAUTH_WINDOW_SECONDS: '86400' }).reauthWindowSeconds, 86400);
});

test('PUBLIC_MAX_AGE_SECONDS is a minute, PUBLIC_STREAMS_MAX 10,000 and PUBLIC_STREAMS_PER_ADDRESS 20 unless set', () => {
  const defaults = loadConfig({ DATA_DIR: dataDir });
  assert.deepEqual([defaults.publicMaxAgeSeconds, defaults.publicStreamsMax, defaults.publicStreamsPerAddress], [60, 10_000, 20]);
  const set = loadConfig({ DATA_DIR: dataDir, PUBLIC_MAX_AGE_SECONDS: '0', PUBLIC_STREAMS_MAX: '5', PUBLIC_STREAMS_PER_ADDRESS: '2' });
  assert.deepEqual([set.publicMaxAgeSeconds, set.publicStreamsMax, set.publicStreamsPerAddress], [0, 5, 2]);
});

test('PUBLIC_URL keeps a path prefix but loses its trailing slash', () => {
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: 'https://example.com/siteward/' });
  assert.equal(config.publicUrl, 'https://example.com/siteward');
  assert.equal(config.publicOrigin, 'https://example.com');
});

test('OUTBOUND_ALLOW_PRIVATE_NETWORKS allows private addresses, and its former name PARTNER_ALLOW_PRIVATE_NETWORKS still does', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'siteward-config-outbound-'));
  try {
    for (const env of [{ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' }, { PARTNER_ALLOW_PRIVATE_NETWORKS: 'yes' }, { OUTBOUND_ALLOW_PRIVATE_NETWORKS: '1', PARTNER_ALLOW_PRIVATE_NETWORKS: 'true' }]) {
      assert.equal(loadConfig({ DATA_DIR: dataDir, ...env }).outboundAllowPrivateNetworks, true, JSON.stringify(env));
    }
    assert.equal(loadConfig({ DATA_DIR: dataDir, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' }).outboundAllowPrivateNetworks, false);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('no OpenID Connect provider unless configured', () => {
  assert.deepEqual(loadConfig({ DATA_DIR: dataDir }).oidcProviders, []);
});

test('one OpenID Connect provider from OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and OIDC_NAME, with the id "oidc"', () => {
  const env = { DATA_DIR: dataDir, OIDC_ISSUER: 'https://sso.example.com/realms/staff', OIDC_CLIENT_ID: 'siteward', OIDC_CLIENT_SECRET: 's3cret-value' };
  assert.deepEqual(loadConfig(env).oidcProviders, [
    { id: 'oidc', name: 'Single sign-on', issuer: 'https://sso.example.com/realms/staff', clientId: 'siteward', clientSecret: 's3cret-value' },
  ]);
  assert.equal(loadConfig({ ...env, OIDC_NAME: 'Staff login' }).oidcProviders[0]?.name, 'Staff login');
  // A provider on this machine may speak plain http.
  for (const issuer of ['http://127.0.0.1:8080/realms/dev', 'http://localhost:8080', 'http://[::1]:9000']) {
    assert.equal(loadConfig({ ...env, OIDC_ISSUER: issuer }).oidcProviders[0]?.issuer, issuer);
  }
});

test('several OpenID Connect providers from OIDC_PROVIDERS_FILE', () => {
  const file = path.join(dataDir, 'providers.json');
  writeFileSync(
    file,
    JSON.stringify([
      { id: 'keycloak', name: 'Staff', issuer: 'https://sso.example.com/realms/staff', client_id: 'siteward', client_secret: 'one' },
      { id: 'gitlab', name: 'GitLab', issuer: 'https://gitlab.example.com', client_id: 'abc', client_secret: 'two' },
    ]),
  );
  const providers = loadConfig({ DATA_DIR: dataDir, OIDC_PROVIDERS_FILE: file }).oidcProviders;
  assert.deepEqual(
    providers.map((provider) => [provider.id, provider.name, provider.issuer, provider.clientId, provider.clientSecret]),
    [
      ['keycloak', 'Staff', 'https://sso.example.com/realms/staff', 'siteward', 'one'],
      ['gitlab', 'GitLab', 'https://gitlab.example.com', 'abc', 'two'],
    ],
  );
});

test('a bad OpenID Connect configuration stops start-up with one line naming the variable, never the client secret', () => {
  const secret = 'never-print-this-secret';
  const single = { OIDC_ISSUER: 'https://sso.example.com', OIDC_CLIENT_ID: 'siteward', OIDC_CLIENT_SECRET: secret };
  const file = (content: string) => {
    const name = path.join(dataDir, `providers-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(name, content);
    return name;
  };
  const entry = { id: 'sso', name: 'SSO', issuer: 'https://sso.example.com', client_id: 'siteward', client_secret: secret };
  const cases: Array<[Record<string, string>, string]> = [
    [{ ...single, OIDC_ISSUER: 'http://sso.example.com' }, 'OIDC_ISSUER'],
    [{ ...single, OIDC_ISSUER: 'http://10.0.0.5/realms/x' }, 'OIDC_ISSUER'],
    [{ ...single, OIDC_ISSUER: 'sso.example.com' }, 'OIDC_ISSUER'],
    [{ ...single, OIDC_ISSUER: 'https://sso.example.com/.well-known/openid-configuration' }, 'OIDC_ISSUER'],
    [{ ...single, OIDC_ISSUER: 'https://sso.example.com/?tenant=1' }, 'OIDC_ISSUER'],
    [{ OIDC_ISSUER: 'https://sso.example.com', OIDC_CLIENT_SECRET: secret }, 'OIDC_CLIENT_ID'],
    [{ OIDC_ISSUER: 'https://sso.example.com', OIDC_CLIENT_ID: 'siteward' }, 'OIDC_CLIENT_SECRET'],
    [{ OIDC_CLIENT_ID: 'siteward', OIDC_CLIENT_SECRET: secret }, 'OIDC_ISSUER'],
    [{ ...single, OIDC_NAME: 'x'.repeat(61) }, 'OIDC_NAME'],
    [{ OIDC_NAME: 'Staff' }, 'OIDC_NAME'],
    [{ ...single, OIDC_PROVIDERS_FILE: file(JSON.stringify([entry])) }, 'OIDC_PROVIDERS_FILE'],
    [{ OIDC_PROVIDERS_FILE: path.join(dataDir, 'missing.json') }, 'OIDC_PROVIDERS_FILE'],
    [{ OIDC_PROVIDERS_FILE: file(`[{"client_secret": "${secret}",`) }, 'OIDC_PROVIDERS_FILE'],
    [{ OIDC_PROVIDERS_FILE: file(JSON.stringify(entry)) }, 'OIDC_PROVIDERS_FILE'],
    [{ OIDC_PROVIDERS_FILE: file(JSON.stringify([entry, entry])) }, 'OIDC_PROVIDERS_FILE'],
    [{ OIDC_PROVIDERS_FILE: file(JSON.stringify([{ ...entry, id: 'Not An Id' }])) }, 'OIDC_PROVIDERS_FILE'],
    [{ OIDC_PROVIDERS_FILE: file(JSON.stringify([{ ...entry, issuer: 'http://sso.example.com' }])) }, 'OIDC_PROVIDERS_FILE'],
    [{ OIDC_PROVIDERS_FILE: file(JSON.stringify([{ ...entry, client_secret: '' }])) }, 'OIDC_PROVIDERS_FILE'],
    [{ OIDC_PROVIDERS_FILE: file(JSON.stringify([{ ...entry, scope: 'openid' }])) }, 'OIDC_PROVIDERS_FILE'],
    [{ OIDC_PROVIDERS_FILE: file(JSON.stringify(['sso'])) }, 'OIDC_PROVIDERS_FILE'],
  ];
  for (const [env, variable] of cases) {
    assert.throws(
      () => loadConfig({ DATA_DIR: dataDir, ...env }),
      (error: unknown) => error instanceof ConfigError && error.message.startsWith(variable) && !error.message.includes('\n') && !error.message.includes(secret),
      `${variable}: ${JSON.stringify(env)}`,
    );
  }
});
