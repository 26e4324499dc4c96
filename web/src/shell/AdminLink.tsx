import { useQuery } from '@tanstack/react-query';
import { accountQuery } from '../queries';
import { Link } from '../router';

/** The Admin area's entry, for instance administrators only. */
export function AdminLink({ current }: { current: boolean }) {
  const account = useQuery({ ...accountQuery(), staleTime: Number.POSITIVE_INFINITY }).data;
  if (account?.instance_admin !== true) return null;
  return (
    <Link to="/admin" aria-current={current ? 'page' : undefined}>
      Admin
    </Link>
  );
}

