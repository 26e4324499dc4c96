// The chat widget as a visitor would see it, drawn from the unsaved draft: the widget's position,
// launcher, greeting and accent; the branding's name, logo, colours and font; the public theme's
// appearance, colours and corners. Values that are not valid yet fall back to the defaults.
import { type CSSProperties, useId } from 'react';
import { COLOR_PATTERN } from '../color';
import type { SiteDraft } from '../siteDraft';
import { isPlainObject, type SettingsObject } from '../settingsText';

function objectOf(text: string): SettingsObject {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : {};
  } catch {
    return {};
  }
}

function textOf(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.trim() !== '' ? value : fallback;
}

function colorOf(...candidates: unknown[]): string | undefined {
  return candidates.find((value): value is string => typeof value === 'string' && COLOR_PATTERN.test(value));
}

const FONTS: Record<string, string> = { system: 'system-ui, sans-serif', 'sans-serif': 'sans-serif', serif: 'serif', monospace: 'monospace' };

/**
 * Whether the preview may draw the logo. The dashboard's content security policy lets images come
 * from this origin and data: URLs only, so nothing on the page contacts another server.
 */
export function logoSource(url: string): { kind: 'none' } | { kind: 'shown'; src: string } | { kind: 'blocked'; host: string } | { kind: 'invalid' } {
  if (url.trim() === '') return { kind: 'none' };
  if (url.startsWith('data:image/')) return { kind: 'shown', src: url };
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { kind: 'invalid' };
    return parsed.origin === window.location.origin ? { kind: 'shown', src: parsed.href } : { kind: 'blocked', host: parsed.host };
  } catch {
    return { kind: 'invalid' };
  }
}

/** `caption` says whose values these are: the editor's unsaved changes unless told otherwise. */
export function WidgetPreview({ draft, caption = 'as a visitor sees it, with your unsaved changes' }: { draft: SiteDraft; caption?: string }) {
  const widget = objectOf(draft.widget);
  const branding = objectOf(draft.branding);
  const theme = objectOf(draft.public_theme);
  const position = widget.position === 'bottom-left' ? 'left' : 'right';
  const accent = colorOf(widget.accent_color, branding.primary_color, draft.color);
  const header = colorOf(branding.primary_color, widget.accent_color, draft.color);
  const company = textOf(branding.company_name, draft.name.trim() === '' ? 'Your site' : draft.name);
  // No launcher text is an icon only, as the field's hint says (an emptied field writes no key).
  const launcher = typeof widget.launcher_text === 'string' ? widget.launcher_text.trim() : '';
  const greeting = textOf(widget.greeting, 'Hi! How can we help?');
  const placeholder = textOf(widget.input_placeholder, 'Type a message…');
  const radius = typeof theme.corner_radius === 'number' && Number.isInteger(theme.corner_radius) && theme.corner_radius >= 0 && theme.corner_radius <= 24 ? theme.corner_radius : 12;
  const appearance = theme.appearance === 'dark' || theme.appearance === 'light' ? theme.appearance : 'auto';
  const logo = logoSource(typeof branding.logo_url === 'string' ? branding.logo_url : '');
  const hidden = widget.enabled === false;
  // Its own id: the editor's conflict panel shows a second preview (the merged result) beside this one.
  const titleId = useId();

  // The visitor's colours, as custom properties the preview's styles read (set through the DOM, so
  // the content security policy's style rules allow them).
  const style = {
    '--preview-accent': accent,
    '--preview-header': header,
    '--preview-background': colorOf(theme.background_color),
    '--preview-text': colorOf(theme.text_color),
    '--preview-radius': `${radius}px`,
    '--preview-font': FONTS[typeof branding.font === 'string' ? branding.font : 'system'] ?? FONTS.system,
  } as CSSProperties;

  return (
    <figure className="widget-preview" aria-labelledby={titleId}>
      <figcaption id={titleId}>
        <strong>Preview</strong> <span className="muted">{caption}</span>
      </figcaption>
      <div className={`preview-page preview-${position} preview-appearance-${appearance} ${theme.density === 'compact' ? 'preview-compact' : ''}`} style={style} data-testid="widget-preview">
        <div className="preview-page-lines" aria-hidden="true">
          <span />
          <span />
          <span />
        </div>
        {hidden && <p className="preview-hidden-note">The widget is turned off: visitors see no chat button.</p>}
        {!hidden && (
          <>
            <div className="preview-window" role="group" aria-label="Chat window">
              <div className="preview-header">
                {logo.kind === 'shown' ? (
                  <img className="preview-logo" src={logo.src} alt={`${company} logo`} />
                ) : (
                  <span className="preview-logo preview-logo-placeholder" aria-hidden="true">
                    {company.slice(0, 1).toUpperCase()}
                  </span>
                )}
                <span className="preview-company">{company}</span>
              </div>
              <div className="preview-messages">
                <p className="preview-bubble preview-bubble-agent">{greeting}</p>
                <p className="preview-bubble preview-bubble-visitor">Hello!</p>
              </div>
              <div className="preview-input">{placeholder}</div>
              {widget.show_branding === true && <p className="preview-powered">Powered by Siteward</p>}
            </div>
            <div className="preview-launcher" {...(launcher === '' ? { role: 'img', 'aria-label': 'Chat button (icon only)' } : {})}>
              <span aria-hidden="true" className="preview-launcher-icon">
                ●
              </span>
              {launcher !== '' && <span className="preview-launcher-text">{launcher}</span>}
            </div>
          </>
        )}
      </div>
      {logo.kind === 'blocked' && (
        <p className="hint preview-note">
          The logo at {logo.host} is not drawn here: this dashboard only loads images from itself, so no other server learns who opens it. Visitors will see it.
        </p>
      )}
      {logo.kind === 'invalid' && <p className="hint preview-note">The logo URL is not an http(s) address, so there is no logo to show.</p>}
    </figure>
  );
}
