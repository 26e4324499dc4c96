import { singleSignOnStartPath, useAuthConfig } from '../singleSignOn';

/**
 * One "Continue with …" per single sign-on provider the server offers (GET /auth/config), or
 * nothing when it offers none. Each is a link, not a request: the browser goes to the provider
 * and the server's callback brings it back to `next`. With `separator`, an "or" line follows the
 * buttons, for a screen whose own form comes after them.
 */
export function SingleSignOnButtons({ next, separator = false }: { next: string | null; separator?: boolean }) {
  const providers = useAuthConfig()?.oidc ?? [];
  if (providers.length === 0) return null;
  return (
    <>
      <div className="single-sign-on">
        {providers.map((provider) => (
          <a key={provider.id} className="button button-block" href={singleSignOnStartPath(provider.id, next)}>
            <SingleSignOnIcon />
            Continue with {provider.name}
          </a>
        ))}
      </div>
      {separator && <div className="divider">or</div>}
    </>
  );
}

/** A door with an arrow going in, drawn with strokes so it takes the button's text colour. */
function SingleSignOnIcon() {
  return (
    <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <path d="M15 3h4a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2h-4" />
      <path d="M10 17l5-5-5-5" />
      <path d="M15 12H3" />
    </svg>
  );
}
