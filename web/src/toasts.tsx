// Short notices at the foot of the screen ("Site deleted. Undo"), each for a few seconds. A toast
// may offer one action (Undo) and a link, and may hold back an action until it ends: a change the
// server cannot take back (revoking a token, removing a member) is only sent once the toast has
// gone without Undo, or at once when the person dismisses it or leaves the page.
import { createContext, type MouseEvent, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { navigate } from './router';

/** How long a toast stays; hovering or focusing it holds it. */
export const TOAST_MS = 8_000;

export interface ToastOptions {
  message: string;
  /** A button in the toast (Undo); the toast closes when it is pressed. */
  action?: { label: string; run: () => void };
  /** A link in the toast, e.g. to the change in History. */
  link?: { label: string; to: string };
  /** Runs once the toast has ended without its action: the held-back change goes out. */
  onExpire?: () => void;
}

interface Toast extends ToastOptions {
  id: number;
}

interface Toasts {
  show: (toast: ToastOptions) => void;
}

const ToastContext = createContext<Toasts | null>(null);

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  // The held-back changes of the toasts on screen, sent at once if the page goes away.
  const pending = useRef(new Map<number, () => void>());

  const end = useCallback((id: number, runExpiry: boolean) => {
    const expire = pending.current.get(id);
    pending.current.delete(id);
    setToasts((current) => current.filter((toast) => toast.id !== id));
    if (runExpiry) expire?.();
  }, []);

  const show = useCallback((options: ToastOptions) => {
    const id = nextId.current++;
    if (options.onExpire !== undefined) pending.current.set(id, options.onExpire);
    setToasts((current) => [...current, { ...options, id }]);
  }, []);

  useEffect(() => {
    const flush = () => {
      for (const expire of pending.current.values()) expire();
      pending.current.clear();
    };
    window.addEventListener('pagehide', flush);
    return () => window.removeEventListener('pagehide', flush);
  }, []);

  const value = useMemo(() => ({ show }), [show]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <section className="toasts" aria-label="Notifications">
        <ol>
          {toasts.map((toast) => (
            <ToastItem key={toast.id} toast={toast} onEnd={(runExpiry) => end(toast.id, runExpiry)} />
          ))}
        </ol>
      </section>
    </ToastContext.Provider>
  );
}

function ToastItem({ toast, onEnd }: { toast: Toast; onEnd: (runExpiry: boolean) => void }) {
  const [held, setHeld] = useState(false);
  const onEndRef = useRef(onEnd);
  onEndRef.current = onEnd;
  useEffect(() => {
    if (held) return;
    const timer = window.setTimeout(() => onEndRef.current(true), TOAST_MS);
    return () => window.clearTimeout(timer);
  }, [held]);

  function follow(event: MouseEvent<HTMLAnchorElement>, to: string) {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    onEnd(true);
    navigate(to);
  }

  return (
    <li
      className="toast"
      onMouseEnter={() => setHeld(true)}
      onMouseLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={() => setHeld(false)}
    >
      <p role="status">{toast.message}</p>
      {toast.link !== undefined && (
        <a href={toast.link.to} onClick={(event) => follow(event, toast.link?.to ?? '/')}>
          {toast.link.label}
        </a>
      )}
      {toast.action !== undefined && (
        <button
          type="button"
          className="button button-secondary toast-action"
          onClick={() => {
            toast.action?.run();
            onEnd(false);
          }}
        >
          {toast.action.label}
        </button>
      )}
      <button type="button" className="button button-ghost toast-close" aria-label="Dismiss" onClick={() => onEnd(true)}>
        ×
      </button>
    </li>
  );
}

export function useToasts(): Toasts {
  const toasts = useContext(ToastContext);
  if (toasts === null) throw new Error('useToasts outside ToastProvider');
  return toasts;
}
