import { Link } from '../router';
import { useTitle } from '../useTitle';

export function NotFoundPage() {
  useTitle('Not found');
  return (
    <section className="empty">
      <h1>Page not found</h1>
      <p>There is nothing at this address.</p>
      <Link to="/" className="button button-primary">
        Go to your sites
      </Link>
    </section>
  );
}
