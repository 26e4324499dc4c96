import { type FormEvent, useState } from 'react';
import { api, ApiError, errorMessage, type User } from '../api';
import { Alert } from '../components/Alert';
import { AuthScreen } from '../components/AuthScreen';
import { Button } from '../components/Button';
import { Field } from '../components/Field';
import { useSignupAvailability } from '../components/useSignupAvailability';
import { Link, navigate } from '../router';
import { useSession } from '../session';
import { useTitle } from '../useTitle';
import { AUTH_ERRORS } from '@server/auth/errors';
import { USER_ERRORS } from '@server/users/errors';

/** The server names fields by path and words its message to follow the field's name. */
function problemAt(error: unknown, field: string, label: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const message = error.fieldMessage(field);
  if (message !== undefined) return `${label} ${message}.`;
  if (field === 'email' && error.code === USER_ERRORS.EMAIL_TAKEN) return error.detail;
  return undefined;
}

const FIELDS = [
  ['name', 'Name'],
  ['email', 'E-mail'],
  ['password', 'Password'],
] as const;

/**
 * /sign-up. POST /auth/signup answers a JWT for API clients and sets no cookie, so the web
 * session comes from a password sign-in with the same credentials right after.
 */
export function SignUpPage() {
  useTitle('Create an account');
  const signup = useSignupAvailability();
  const { refresh } = useSession();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [createdButNotSignedIn, setCreatedButNotSignedIn] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await api.post('/auth/signup', { email: email.trim(), password, ...(name.trim() === '' ? {} : { name: name.trim() }) });
    } catch (caught) {
      setError(caught);
      setBusy(false);
      return;
    }
    try {
      await api.post<{ user: User; second_factor_required: boolean }>('/auth/session', { email: email.trim(), password });
      await refresh();
      navigate('/', { replace: true, force: true });
    } catch (caught) {
      // The account exists now; only the sign-in step failed (a rate limit, say).
      setCreatedButNotSignedIn(errorMessage(caught));
      setBusy(false);
    }
  }

  if (signup === 'closed') {
    return (
      <AuthScreen title="Sign-up is closed" footer={<SignInLink />}>
        <Alert kind="info">This Siteward server does not take new sign-ups. Ask its administrator for an account.</Alert>
      </AuthScreen>
    );
  }

  if (createdButNotSignedIn !== undefined) {
    return (
      <AuthScreen title="Your account is ready">
        <Alert kind="warning" title="We could not sign you in">
          {createdButNotSignedIn}
        </Alert>
        <Link to="/sign-in" className="button button-primary button-block">
          Go to sign in
        </Link>
      </AuthScreen>
    );
  }

  const fieldErrors = Object.fromEntries(FIELDS.map(([field, label]) => [field, problemAt(error, field, label)]));
  const closed = error instanceof ApiError && error.code === AUTH_ERRORS.SIGNUP_CLOSED;
  const showAlert = error !== undefined && Object.values(fieldErrors).every((message) => message === undefined);
  return (
    <AuthScreen title="Create your account" intro="Manage your sites, widgets and integrations in one place." footer={<SignInLink />}>
      {showAlert && (
        <Alert kind="error" title={closed ? 'Sign-up is closed' : undefined}>
          {errorMessage(error)}
        </Alert>
      )}
      <form onSubmit={submit} noValidate>
        <Field label="Name (optional)" name="name" autoComplete="name" value={name} onChange={(event) => setName(event.target.value)} error={fieldErrors.name} />
        <Field
          label="E-mail"
          type="email"
          name="email"
          autoComplete="email"
          required
          autoFocus
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={fieldErrors.email}
        />
        <Field
          label="Password"
          type="password"
          name="password"
          autoComplete="new-password"
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          error={fieldErrors.password}
          hint="8 to 256 characters. Common passwords, repeats, sequences and your own e-mail address or name are refused; a few unrelated words make a strong one."
        />
        <Button type="submit" variant="primary" className="button-block" busy={busy}>
          Create account
        </Button>
      </form>
    </AuthScreen>
  );
}

function SignInLink() {
  return (
    <p>
      Already have an account? <Link to="/sign-in">Sign in</Link>
    </p>
  );
}
