import { Alert } from './Alert';
import { Button } from './Button';
import { isTwoFactorRequired, TwoFactorRequiredNotice } from './TwoFactorRequiredNotice';

/**
 * What a section shows when its data could not be loaded: the reason and a retry; or, when a
 * workspace's requirement of two-factor authentication closed it (`error`), the way to set one up.
 */
export function LoadFailed({ title, message, onRetry, error }: { title: string; message: string; onRetry: () => void; error?: unknown }) {
  if (isTwoFactorRequired(error)) return <TwoFactorRequiredNotice />;
  return (
    <Alert kind="error" title={title}>
      <p>{message}</p>
      <Button onClick={onRetry}>Try again</Button>
    </Alert>
  );
}
