import type { ReactNode } from 'react';

/** The frame of the signed-out screens: the brand and one centred card. */
interface AuthScreenProps {
  title: string;
  intro?: ReactNode;
  /** A picture for a step that is mostly a message ("check your inbox"). */
  icon?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}

export function AuthScreen({ title, intro, icon, children, footer }: AuthScreenProps) {
  return (
    <main className="auth-screen">
      <div className="auth-card">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Siteward
        </div>
        {icon !== undefined && <div className="auth-icon">{icon}</div>}
        <h1 className="auth-title">{title}</h1>
        {intro !== undefined && <p className="auth-intro">{intro}</p>}
        {children}
        {footer !== undefined && <div className="auth-footer">{footer}</div>}
      </div>
    </main>
  );
}
