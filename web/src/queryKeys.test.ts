import { QueryClient } from '@tanstack/react-query';
import { describe, expect, test } from 'vitest';
import { accessTokensQuery, workspacesQuery } from './queries';
import { type AuditLogFilter, queryKeys } from './queryKeys';
import { DEFAULT_SITE_SORT, type SiteListQuery } from './siteList';

const listQuery: SiteListQuery = { workspaceId: null, q: '', sort: DEFAULT_SITE_SORT, cursor: null, limit: 25 };
const filter: AuditLogFilter = { action: '', actorId: '' };

/** Every key the factory makes, by its name, for two different arguments each. */
function everyKey(id: string): Array<[string, readonly unknown[]]> {
  return [
    ['account.me', queryKeys.account.me()],
    ['account.sessions', queryKeys.account.sessions()],
    ['account.passkeys', queryKeys.account.passkeys()],
    ['account.totp', queryKeys.account.totp()],
    ['account.securityEvents', queryKeys.account.securityEvents()],
    ['account.emailChange', queryKeys.account.emailChange()],
    ['accessTokens.list', queryKeys.accessTokens.list()],
    ['workspaces.list', queryKeys.workspaces.list()],
    ['workspaces.members', queryKeys.workspaces.members(id)],
    ['workspaces.invitations', queryKeys.workspaces.invitations(id)],
    ['workspaces.webhooks', queryKeys.workspaces.webhooks(id)],
    ['workspaces.deliveries', queryKeys.workspaces.deliveries(id, id)],
    ['workspaces.auditLog', queryKeys.workspaces.auditLog(id, filter)],
    ['sites.list', queryKeys.sites.list({ ...listQuery, workspaceId: id })],
    ['sites.search', queryKeys.sites.search(id)],
    ['sites.detail', queryKeys.sites.detail(id)],
    ['sites.versions', queryKeys.sites.versions(id)],
    ['sites.partnerChecks', queryKeys.sites.partnerChecks(id)],
    ['changeRequests.queue', queryKeys.changeRequests.queue(id)],
    ['changeRequests.site', queryKeys.changeRequests.site(id)],
    ['changeRequests.detail', queryKeys.changeRequests.detail(id, id)],
    ['trash.list', queryKeys.trash.list()],
    ['admin.users', queryKeys.admin.users(id)],
  ];
}

describe('the query-key factory', () => {
  test('no two requests share a key, whatever their arguments', () => {
    const seen = new Map<string, string>();
    for (const id of ['a', 'b']) {
      for (const [name, key] of everyKey(id)) {
        const text = JSON.stringify(key);
        const earlier = seen.get(text);
        // The same request asked twice (a key without arguments) is the one allowed repeat.
        if (earlier !== undefined) expect(earlier).toBe(name);
        seen.set(text, name);
      }
    }
    expect(seen.size).toBeGreaterThan(everyKey('a').length);
  });

  test('each key starts with its resource, and the resources differ', () => {
    const roots = Object.entries(queryKeys).map(([resource, factory]) => [resource, factory.all()[0]] as const);
    expect(new Set(roots.map(([, root]) => root)).size).toBe(roots.length);
    for (const [name, key] of everyKey('a')) {
      const resource = name.split('.')[0] as keyof typeof queryKeys;
      expect(key[0]).toBe(queryKeys[resource].all()[0]);
    }
  });

  test('a site saved refreshes every page of the list but not the site the editor holds', () => {
    const lists = queryKeys.sites.lists();
    const startsWith = (key: readonly unknown[], prefix: readonly unknown[]) => prefix.every((part, index) => JSON.stringify(key[index]) === JSON.stringify(part));
    expect(startsWith(queryKeys.sites.list(listQuery), lists)).toBe(true);
    expect(startsWith(queryKeys.sites.detail('a'), lists)).toBe(false);
    expect(startsWith(queryKeys.sites.versions('a'), lists)).toBe(false);
  });

  test('a key holds its one shape: the workspaces list is a list, whoever reads it', () => {
    const client = new QueryClient();
    client.setQueryData(workspacesQuery().queryKey, []);
    // The reply's envelope under the list's key was the crash of Settings > Access tokens; it no longer compiles.
    // @ts-expect-error: the workspaces key holds Workspace[], not { workspaces }
    client.setQueryData(workspacesQuery().queryKey, { workspaces: [] });
    // @ts-expect-error: the access tokens key holds AccessToken[], not { access_tokens }
    client.setQueryData(accessTokensQuery().queryKey, { access_tokens: [] });
    expect(JSON.stringify(workspacesQuery().queryKey)).not.toBe(JSON.stringify(accessTokensQuery().queryKey));
  });
});
