import { Alert } from './Alert';
import { Button } from './Button';

/** What a section shows when its data could not be loaded: the reason and a retry. */
export function LoadFailed({ title, message, onRetry }: { title: string; message: string; onRetry: () => void }) {
  return (
    <Alert kind="error" title={title}>
      <p>{message}</p>
      <Button onClick={onRetry}>Try again</Button>
    </Alert>
  );
}
