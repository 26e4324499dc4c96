import { useTitle } from '../useTitle';

export function SecurityPage() {
  useTitle('Security');
  return <h1>Security</h1>;
}
