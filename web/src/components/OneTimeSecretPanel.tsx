import { type ReactNode, useEffect, useRef } from 'react';
import { Button } from './Button';

interface OneTimeSecretPanelProps {
  titleId: string;
  title: ReactNode;
  /** The warning, the secret and anything that helps use it. */
  children: ReactNode;
  /** Drops the secret: nothing on the screen or in React state can show it again. */
  onDone: () => void;
}

/** A secret the server shows in one answer only (an access token, a webhook's signing secret), until "Done". */
export function OneTimeSecretPanel({ titleId, title, children, onDone }: OneTimeSecretPanelProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Move focus to the panel, so keyboard and screen-reader users land on the secret at once.
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="card token-secret" aria-labelledby={titleId}>
      <h2 id={titleId} ref={heading} tabIndex={-1}>
        {title}
      </h2>
      {children}
      <div className="row row-end">
        <Button variant="primary" onClick={onDone}>
          Done
        </Button>
      </div>
    </section>
  );
}
