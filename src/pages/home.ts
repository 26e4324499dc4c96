import { escapeHtml, page } from './layout.js';

/** A plain landing page until the web interface is built: what this is and where the API lives. */
export function homePage(publicUrl: string): string {
  return page(
    'Siteward',
    `<h1>Siteward</h1>
<p>The Siteward API is running at <code>${escapeHtml(publicUrl)}/api/v1</code>.</p>
<p>Obtain a token with <code>POST /auth/login</code>; the OpenAPI description is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>`,
  );
}
