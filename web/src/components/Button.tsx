import type { ButtonHTMLAttributes } from 'react';

interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: 'primary' | 'secondary' | 'danger' | 'ghost';
  /** Disables the button and shows that the action is running. */
  busy?: boolean;
}

export function Button({ variant = 'secondary', busy = false, disabled, className, children, type = 'button', ...rest }: ButtonProps) {
  return (
    <button type={type} className={`button button-${variant} ${className ?? ''}`} disabled={disabled === true || busy} aria-busy={busy || undefined} {...rest}>
      {busy && <span className="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}
