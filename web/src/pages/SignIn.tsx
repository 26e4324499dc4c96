import { useTitle } from '../useTitle';

export function SignInPage() {
  useTitle('SignIn');
  return <h1>SignIn</h1>;
}
