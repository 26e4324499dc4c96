import type { ReactNode } from 'react';

/** A message box: errors are announced at once (role=alert), the rest politely (role=status). */
export function Alert({ kind, children, title }: { kind: 'error' | 'success' | 'info' | 'warning'; children: ReactNode; title?: string }) {
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {title !== undefined && <strong className="alert-title">{title}</strong>}
      <div>{children}</div>
    </div>
  );
}
