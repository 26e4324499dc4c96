import { useTitle } from '../useTitle';

export function SignUpPage() {
  useTitle('SignUp');
  return <h1>SignUp</h1>;
}
