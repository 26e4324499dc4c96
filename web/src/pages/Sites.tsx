import { useTitle } from '../useTitle';

export function SitesPage() {
  useTitle('Sites');
  return <h1>Sites</h1>;
}
