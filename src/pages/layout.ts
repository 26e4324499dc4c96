import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { escapeHtml } from '../lib/html.js';

// The look of the dashboard's sign-in card (web/src/styles.css), light or dark as the system says:
// these pages run no script, so they follow prefers-color-scheme without a switch.
const STYLE = `
  :root { color-scheme: light dark; --bg: #f6f7f9; --surface: #ffffff; --border: #e3e6eb; --border-strong: #cfd4dc; --text: #14171c; --muted: #5d6675; --accent: #4f46e5; --accent-solid: #4f46e5; --accent-solid-hover: #4338ca; --on-accent: #ffffff; --accent-border: #d3d7ff; --danger: #b42323; --focus: #a5b4fc; --code: #eef0f3; --brand-from: #6366f1; --brand-to: #06b6d4; --shadow: rgba(16, 24, 40, 0.08); }
  @media (prefers-color-scheme: dark) {
    :root { --bg: #0f1115; --surface: #181b21; --border: #2a2f38; --border-strong: #454c5a; --text: #e8eaee; --muted: #a0a8b6; --accent: #a5abff; --accent-border: #3a3f78; --danger: #ff8a80; --focus: #818cf8; --code: #23272f; --shadow: rgba(0, 0, 0, 0.4); }
  }
  body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; background: var(--bg); color: var(--text); }
  .screen { min-height: 100vh; display: flex; align-items: center; justify-content: center; padding: 1.5rem 1rem; box-sizing: border-box; }
  main { width: 100%; max-width: 25rem; box-sizing: border-box; padding: 2rem; background: var(--surface); border: 1px solid var(--border); border-radius: 14px; box-shadow: 0 1px 3px var(--shadow); }
  .brand { display: flex; align-items: center; gap: 0.5rem; font-weight: 700; font-size: 1.05rem; margin-bottom: 1.25rem; }
  .brand-mark { width: 1.4rem; height: 1.4rem; border-radius: 6px; background: linear-gradient(135deg, var(--brand-from), var(--brand-to)); }
  h1 { font-size: 1.35rem; line-height: 1.25; margin: 0 0 0.75rem; }
  p { margin: 0 0 1rem; }
  form + p { margin-top: 1rem; }
  a { color: var(--accent); }
  label { display: block; font-weight: 600; font-size: 0.9rem; margin-bottom: 0.3rem; }
  input[type=email], input[type=text], input[type=password] { width: 100%; box-sizing: border-box; padding: 0.55rem 0.7rem; border: 1px solid var(--border-strong); border-radius: 8px; font: inherit; color: inherit; background: var(--surface); margin-bottom: 1rem; }
  button { width: 100%; min-height: 2.5rem; padding: 0.6rem; border: 1px solid var(--accent-solid); border-radius: 8px; background: var(--accent-solid); color: var(--on-accent); font: inherit; font-weight: 600; cursor: pointer; }
  button:hover { background: var(--accent-solid-hover); }
  button.secondary { background: transparent; color: var(--accent); border-color: var(--accent-border); margin-top: 0.5rem; }
  ul.providers { list-style: none; padding: 0; margin: 0 0 1rem; display: grid; gap: 0.5rem; }
  a.button-link { display: block; box-sizing: border-box; min-height: 2.5rem; padding: 0.55rem; border: 1px solid var(--border-strong); border-radius: 8px; color: var(--text); text-align: center; font-weight: 600; text-decoration: none; }
  a.button-link:hover { border-color: var(--accent); }
  button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
  .muted { color: var(--muted); font-size: 0.875rem; }
  .error { color: var(--danger); font-weight: 600; }
  code { background: var(--code); padding: 0.1rem 0.3rem; border-radius: 0.25rem; }
  @media (max-width: 480px) { main { padding: 1.25rem; } .screen { padding: 1rem 0.5rem; } }
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
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)} · Siteward</title>
<style>${STYLE}</style>
</head>
<body>
<div class="screen">
<main>
<div class="brand"><span class="brand-mark" aria-hidden="true"></span>Siteward</div>
${body}
</main>
</div>
</body>
</html>
`;
}

/** Headers for the server-rendered sign-in pages: never cached, never framed, no referrer. */
export function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .headers({
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'content-security-policy': PAGE_CSP,
      'x-frame-options': 'DENY',
    })
    .type('text/html; charset=utf-8')
    .send(html);
}
