import { useEffect, useId, useRef } from 'react';
import { useLeaveGuard } from '../router';
import { Alert } from './Alert';
import { Button } from './Button';
import { CopyButton } from './CopyButton';

const FILE_NAME = 'siteward-recovery-codes.txt';

function recoveryCodesText(codes: string[]): string {
  return [
    'Siteward recovery codes',
    'Each code signs you in once, in place of a code from your authenticator app.',
    '',
    ...codes,
    '',
  ].join('\n');
}

/** Saves the codes as a text file; the object URL exists only for the click. */
function download(codes: string[]): void {
  const url = URL.createObjectURL(new Blob([recoveryCodesText(codes)], { type: 'text/plain;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = FILE_NAME;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked on the next turn: the download has taken the URL by then.
  window.setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * Recovery codes, shown once: the server keeps only their hashes. Leaving before the user says
 * they are saved asks first.
 */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  useLeaveGuard(true, 'Your recovery codes will not be shown again. Leave without saving them?');
  const heading = useRef<HTMLHeadingElement>(null);
  const headingId = useId();
  // Move focus to the codes, so keyboard and screen-reader users land on what just appeared.
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="recovery-codes" aria-labelledby={headingId}>
      <h3 id={headingId} ref={heading} tabIndex={-1}>
        Your recovery codes
      </h3>
      <Alert kind="warning">
        Save these codes somewhere safe, such as a password manager. Each one signs you in once if you lose your authenticator app. They will not be shown
        again.
      </Alert>
      <ol className="recovery-code-grid" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="row">
        <Button onClick={() => download(codes)}>Download</Button>
        <CopyButton text={codes.join('\n')} />
        <Button variant="primary" onClick={onDone} className="recovery-done">
          I have saved them
        </Button>
      </div>
    </section>
  );
}
