import { useEffect } from 'react';
import { useRouteError } from 'react-router';
import { AuthScreen } from '../components/AuthScreen';
import { Button } from '../components/Button';
import { Link } from '../router';
import { useTitle } from '../useTitle';

/** What went wrong, in a line for the person and the whole of it for the console. */
function useReportedError(): string {
  const error = useRouteError();
  useEffect(() => console.error(error), [error]);
  return error instanceof Error ? error.message : 'An unexpected error occurred.';
}

/**
 * A screen that failed while drawing: shown in its place, inside the dashboard's frame, so the top
 * bar still leads everywhere else. A reload starts the dashboard afresh (and fetches a newer
 * version of it, should the failure be a screen's code missing after an upgrade).
 */
export function ScreenError() {
  useTitle('Something went wrong');
  const message = useReportedError();
  return (
    <section className="empty" role="alert">
      <h1>Something went wrong on this screen</h1>
      <p>
        The dashboard could not show it. Nothing you saved is lost. Reload to try again, or go somewhere else from the top bar.
      </p>
      <p className="muted small">Details: {message}</p>
      <div className="row">
        <Button variant="primary" onClick={() => window.location.reload()}>
          Reload
        </Button>
        <Link to="/" className="button button-secondary">
          Go to your sites
        </Link>
      </div>
    </section>
  );
}

/** The same when the dashboard's frame itself failed: there is no top bar left to keep. */
export function AppError() {
  useTitle('Something went wrong');
  const message = useReportedError();
  return (
    <AuthScreen title="Something went wrong" intro="The dashboard could not be shown. Nothing you saved is lost.">
      <p className="muted small">Details: {message}</p>
      <Button variant="primary" className="button-block" onClick={() => window.location.reload()}>
        Reload
      </Button>
    </AuthScreen>
  );
}
