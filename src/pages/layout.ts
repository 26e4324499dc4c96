import { createHash } from 'node:crypto';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const STYLE = `
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; background: #f9fafb; color: #111827; }
  main { max-width: 26rem; margin: 12vh auto; padding: 2rem; background: #fff; border: 1px solid #e5e7eb; border-radius: 0.75rem; }
  h1 { font-size: 1.375rem; margin: 0 0 0.75rem; }
  p { margin: 0 0 1rem; }
  form + p { margin-top: 1rem; }
  label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
  input[type=email], input[type=text] { width: 100%; box-sizing: border-box; padding: 0.6rem; border: 1px solid #d1d5db; border-radius: 0.5rem; font: inherit; margin-bottom: 1rem; }
  button { width: 100%; padding: 0.7rem; border: 0; border-radius: 0.5rem; background: #4f46e5; color: #fff; font: inherit; font-weight: 600; cursor: pointer; }
  button.secondary { background: transparent; color: #4f46e5; border: 1px solid #c7d2fe; }
  button:focus-visible, input:focus-visible { outline: 3px solid #a5b4fc; outline-offset: 2px; }
  .muted { color: #6b7280; font-size: 0.875rem; }
  .error { color: #b91c1c; font-weight: 600; }
  code { background: #f3f4f6; padding: 0.1rem 0.3rem; border-radius: 0.25rem; }
`;

/**
 * Server-rendered pages allow nothing but their own inline style and forms back to this origin:
 * no script at all, no framing, no base tag, no outside resources.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src '${'sha256-' + createHash('sha256').update(STYLE).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Siteward</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}
