import { useTitle } from '../useTitle';

export function AccessTokensPage() {
  useTitle('AccessTokens');
  return <h1>AccessTokens</h1>;
}
