import type { Clock } from '../lib/clock.js';
import type { SiteCaller } from '../sites/queries.js';
import type { SiteService } from '../sites/service.js';
import type { PublicOrigins } from './origins.js';
import type { SiteInstallJson } from './schema.js';

/** Puts PUBLIC_URL and a key into the snippet a page carries (docs/embedding.md). */
export function embedSnippet(publicUrl: string, publicKey: string): string {
  return `<script src="${publicUrl}/embed.js" data-site="${publicKey}" async></script>`;
}

/** What a site's Install section shows: for members who may read the site, as the site itself. */
export class SiteInstall {
  constructor(private readonly deps: { sites: SiteService; origins: PublicOrigins; clock: Clock; publicUrl: string }) {}

  async get(caller: SiteCaller, siteId: string): Promise<SiteInstallJson> {
    const site = await this.deps.sites.get(caller, siteId);
    const expiresAt = site.previous_public_key_expires_at;
    const previousAnswers = site.previous_public_key !== null && expiresAt !== null && Date.parse(expiresAt) > this.deps.clock.now().getTime();
    return {
      public_key: site.public_key,
      previous_key: previousAnswers && site.previous_public_key !== null && expiresAt !== null ? { public_key: site.previous_public_key, expires_at: expiresAt } : null,
      script_url: `${this.deps.publicUrl}/embed.js`,
      config_url: `${this.deps.publicUrl}/public/v1/sites/${site.public_key}`,
      snippet: embedSnippet(this.deps.publicUrl, site.public_key),
      fetched_from: await this.deps.origins.list(site.id),
    };
  }
}
