import { type ReactNode, useEffect, useId, useRef } from 'react';

interface ModalDialogProps {
  /** Shown while true; a dialog mounted only while it is needed leaves it out. */
  open?: boolean;
  title: ReactNode;
  /** Escape: the dialog stays open until the caller closes it, so a busy dialog can refuse. */
  onCancel: () => void;
  /** Called just before the dialog opens, to start it blank (or as it was left). */
  onOpen?: () => void;
  /** Beside "dialog", for a dialog that needs more room. */
  className?: string;
  children: ReactNode;
}

/**
 * The one modal shell of the dashboard, on <dialog> opened with showModal(): the page behind is
 * inert, focus is trapped inside and goes back where it was on close, Escape asks to cancel, and
 * the dialog is named by its title (a screen may hold several, so the id is unique to each).
 */
export function ModalDialog({ open = true, title, onCancel, onOpen, className, children }: ModalDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open && !element.open) {
      onOpen?.();
      element.showModal();
    }
    if (!open && element.open) element.close();
  }, [open, onOpen]);
  return (
    <dialog
      ref={dialog}
      className={className === undefined ? 'dialog' : `dialog ${className}`}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}
