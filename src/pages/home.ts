/** A plain landing page until the web interface is built: what this is and where the API lives. */
export function homePage(publicUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Siteward</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem; color: #1f2937; }
  code { background: #f3f4f6; padding: 0.1rem 0.3rem; border-radius: 0.25rem; }
</style>
</head>
<body>
<main>
  <h1>Siteward</h1>
  <p>The Siteward API is running at <code>${escapeHtml(publicUrl)}/api/v1</code>.</p>
  <p>Obtain a token with <code>POST /auth/login</code>; the OpenAPI description is at
     <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>
</main>
</body>
</html>
`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
